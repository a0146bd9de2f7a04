/*
 * MPI standard, nonblocking collective operations: "blocking and nonblocking
 * collective operations do not match".
 *
 * Rank 0 calls MPI_Ialltoall (and waits); rank 1 calls the blocking
 * MPI_Alltoall. Erroneous. Expected verdict: CO001 at rank 0's MPI_Ialltoall
 * and rank 1's MPI_Alltoall; and DL001 at rank 0's MPI_Wait and rank 1's
 * MPI_Alltoall, since with MPICH 4.0 and Open MPI 4.1 the two operations never
 * match and both ranks wait forever. Without mpicheck the program hangs
 * (mpicheck must end it).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int buf1[4] = {0}, buf2[4] = {0}, buf3[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf1[0] = 10 + rank;
    buf2[0] = 20 + rank;
    buf3[0] = 30 + rank;
    MPI_Request req;

    switch (rank) {
    case 0:
        MPI_Ialltoall(buf1, 2, MPI_INT, buf2, 2, MPI_INT, MPI_COMM_WORLD, &req); /* expect: CO001 */
        MPI_Wait(&req, MPI_STATUS_IGNORE); /* expect: DL001 */
        break;
    case 1:
        MPI_Alltoall(buf1, 2, MPI_INT, buf2, 2, MPI_INT, MPI_COMM_WORLD); /* expect: CO001, DL001 */
        break;
    }

    MPI_Finalize();
    return 0;
}
