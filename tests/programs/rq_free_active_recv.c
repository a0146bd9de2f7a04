/*
 * MPI_Request_free of a receive request still in flight (RQ002): the program can no
 * longer learn when the data has arrived. The barrier after the send makes the run
 * end cleanly whatever the timing.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req); /* expect: RQ002 */
    } else {
        MPI_Send(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
