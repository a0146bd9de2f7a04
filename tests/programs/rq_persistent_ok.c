/*
 * Twin of rq_persistent_start_twice.c: each start of the persistent requests is
 * completed (MPI_Wait, MPI_Waitall) before the next, and the requests are freed.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4}, other[4];
    MPI_Request req[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Send_init(data, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, &req[1]);
    } else {
        MPI_Recv_init(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Recv_init(other, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &req[1]);
    }
    for (int i = 0; i < 3; i++) {
        MPI_Start(&req[0]);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        MPI_Startall(1, &req[1]);
        MPI_Waitall(1, &req[1], MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    MPI_Finalize();
    return 0;
}
