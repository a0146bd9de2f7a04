/*
 * A receive into a NULL buffer with a positive count (AR007): the allocation was skipped on the receiving rank. The library rejects it or crashes writing to address 0.
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
    int *incoming = NULL;
    if (rank == 0) {
        MPI_Send(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(incoming, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: AR007 */
    }
    MPI_Finalize();
    return 0;
}
