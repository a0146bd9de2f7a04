/*
 * Twin of the buffered-send programs: a buffer sized with MPI_Pack_size plus
 * MPI_BSEND_OVERHEAD is attached, used, and detached before MPI_Finalize.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4}, size;
    void *buffer;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, &size);
    size += MPI_BSEND_OVERHEAD;
    if (rank == 0) {
        MPI_Buffer_attach(malloc(size), size);
        MPI_Bsend(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Buffer_detach(&buffer, &size);
        free(buffer);
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
