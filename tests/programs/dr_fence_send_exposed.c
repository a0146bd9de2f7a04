/*
 * Rank 1 puts into element 0 of rank 0's window in a fence epoch, and rank 0 sends that
 * element to rank 2 in the same epoch (DR004): the send may carry the old value, the new
 * one or a mix. The program runs to completion without any error from MPI.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, slots[4] = {0}, got = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    else if (rank == 0)
        MPI_Send(&slots[0], 1, MPI_INT, 2, 0, MPI_COMM_WORLD); /* expect: DR004 */
    else
        MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
