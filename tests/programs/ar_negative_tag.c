/*
 * A negative tag in a send (AR002). The library rejects it and aborts.
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
        MPI_Send(data, 4, MPI_INT, 1, -3, MPI_COMM_WORLD); /* expect: AR002 */
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
