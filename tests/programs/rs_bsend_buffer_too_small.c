/*
 * A buffer attached for buffered sends that cannot hold the message plus
 * MPI_BSEND_OVERHEAD (RS004): the send fails and the job aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[100] = {0};
    static char space[256]; /* more than MPI_BSEND_OVERHEAD, less than the message */
    void *detached;
    int detached_size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Buffer_attach(space, sizeof space);
        MPI_Bsend(data, 100, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect: RS004 */
        MPI_Buffer_detach(&detached, &detached_size);
    } else {
        MPI_Recv(data, 100, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
