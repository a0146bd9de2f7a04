/*
 * A negative count computed from an empty local part (AR003). The library rejects it and aborts.
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
    int nlocal = rank; /* 0 on rank 0 */
    if (rank == 0) {
        MPI_Send(data, nlocal - 1, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect: AR003 */
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
