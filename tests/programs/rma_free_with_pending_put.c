/*
 * MPI_Win_free right after an MPI_Put of a fence epoch, with no closing fence to complete
 * it (RM003).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, x = 42;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&value, sizeof value, sizeof value, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_free(&win); /* expect: RM003 */
    MPI_Finalize();
    return 0;
}
