/*
 * A destination rank equal to the communicator size (AR001): ranks are 0..size-1. The MPI library rejects the call and aborts; the finding must still be reported.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size, data[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        MPI_Send(data, 4, MPI_INT, size, 0, MPI_COMM_WORLD); /* expect: AR001 */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
