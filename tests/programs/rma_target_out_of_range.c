/*
 * An MPI_Get whose target rank is the window's group size (RM005): ranks are
 * 0..size-1. The window is on a communicator of the even world ranks, so world rank 2
 * is its rank 1. The MPI library rejects the call and aborts; the finding must still be
 * reported.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, value = 0, got = 0;
    MPI_Comm even;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &even);
    if (even != MPI_COMM_NULL) {
        MPI_Comm_size(even, &size);
        MPI_Win_create(&value, sizeof value, sizeof value, MPI_INFO_NULL, even, &win);
        MPI_Win_fence(0, win);
        if (rank == 0)
            MPI_Get(&got, 1, MPI_INT, size, 0, 1, MPI_INT, win); /* expect: RM005 */
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
        MPI_Comm_free(&even);
    }
    MPI_Finalize();
    return 0;
}
