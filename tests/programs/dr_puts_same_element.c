/*
 * Ranks 1 and 2 both MPI_Put into element 0 of rank 0 in the same fence epoch (DR001):
 * nothing orders the two puts, so rank 0 ends up with either value. The program runs to
 * completion without any error from MPI.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, slots[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank > 0)
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* expect: DR001 */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
