/*
 * MPI_IN_PLACE as the buffer of a point-to-point send (AR008): only collectives have an in-place form.
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
        MPI_Send(MPI_IN_PLACE, 4, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect: AR008 */
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
