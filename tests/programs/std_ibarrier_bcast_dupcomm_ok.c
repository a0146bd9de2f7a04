/*
 * MPI standard, nonblocking collective operations: the corrected form of the
 * erroneous Ibarrier/Bcast ordering, using a duplicated communicator.
 *
 * The barrier runs on MPI_COMM_WORLD and the broadcast on a duplicate, so the
 * different orders on the two ranks match correctly ("If started with two
 * processes, the following program would be correct"). Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
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
    MPI_Comm dupcomm;

    MPI_Comm_dup(MPI_COMM_WORLD, &dupcomm);
    switch (rank) {
    case 0:
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Bcast(buf1, 4, MPI_INT, 0, dupcomm);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    case 1:
        MPI_Bcast(buf1, 4, MPI_INT, 0, dupcomm);
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    }
    MPI_Comm_free(&dupcomm);

    MPI_Finalize();
    return 0;
}
