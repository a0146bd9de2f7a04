/*
 * A persistent send of ints received, at its second start, by a receive of floats
 * (TY002), and a persistent receive of 2 ints started for a message of 4 (TY003).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a[4] = {1, 2, 3, 4}, b[4];
    float f[4];
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req); /* expect: TY002 */
        for (int round = 0; round < 2; round++) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
        MPI_Send(a, 4, MPI_INT, 1, 1, MPI_COMM_WORLD); /* expect: TY003 */
    } else {
        MPI_Recv(b, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(f, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TY002 */
        MPI_Recv_init(b, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &req); /* expect: TY003 */
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
    }
    MPI_Finalize();
    return 0;
}
