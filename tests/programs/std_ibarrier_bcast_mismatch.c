/*
 * MPI standard, nonblocking collective operations: erroneous matching of
 * different collective operations on the same communicator.
 *
 * Rank 0 starts MPI_Ibarrier then calls MPI_Bcast; rank 1 calls MPI_Bcast then
 * starts MPI_Ibarrier. "This ordering would match MPI_Ibarrier on rank 0 with
 * MPI_Bcast on rank 1 which is erroneous." Expected verdict: CO001 at rank 0's
 * MPI_Ibarrier and rank 1's MPI_Bcast (the first position). No deadlock code:
 * MPICH 4.0 and Open MPI 4.1 complete this run (their internal messages for
 * the two operations do not mix).
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
        MPI_Ibarrier(MPI_COMM_WORLD, &req); /* expect: CO001 */
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    case 1:
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD); /* expect: CO001 */
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    }

    MPI_Finalize();
    return 0;
}
