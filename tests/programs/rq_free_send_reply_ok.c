/*
 * MPI 4.1 Example 3.13: each rank frees the request of its nonblocking send and knows
 * the send completed when the reply to it arrives, so reusing the send buffer for the
 * next message is safe.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, n = 3;
    float outval = 0, inval;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Recv(&inval, 1, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        n--;
    }
    for (int i = 0; i < n; i++) {
        outval = i;
        MPI_Isend(&outval, 1, MPI_FLOAT, 1 - rank, 0, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        MPI_Irecv(&inval, 1, MPI_FLOAT, 1 - rank, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rank == 1) {
        MPI_Isend(&outval, 1, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
