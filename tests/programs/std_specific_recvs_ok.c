/*
 * Correct twin of std_wildcard_then_specific_recv.c: rank 0 names the source
 * of each receive, so every matching order completes and no message races.
 * Expected verdict: no finding.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int x = 0, y = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    switch (rank) {
    case 0:
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case 1:
        x = 1;
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        break;
    case 2:
        y = 2;
        usleep(500 * 1000);
        MPI_Send(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        break;
    }

    MPI_Finalize();
    return 0;
}
