/*
 * An MPI_Put of 4 ints at displacement 8 into a window of 10 ints (RM006): elements 8..11,
 * two past the end. The window is the first 10 elements of a 12-element array, so the
 * stray bytes land in memory the program owns.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, buf[12] = {0}, src[4];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < 4; i++)
        src[i] = i;
    MPI_Win_create(buf, 10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(src, 4, MPI_INT, 1, 8, 4, MPI_INT, win); /* expect: RM006 */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
