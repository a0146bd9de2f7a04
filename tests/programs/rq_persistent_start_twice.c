/*
 * A persistent request started a second time before the first start was completed
 * (RQ004 at the second MPI_Start). The request sends to MPI_PROC_NULL so the outcome
 * does not depend on how the MPI treats the erroneous start (Open MPI, for one, hands
 * out a new request handle for it).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int data[4] = {1, 2, 3, 4};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Send_init(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Start(&req); /* expect: RQ004 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
    MPI_Finalize();
    return 0;
}
