/*
 * A partitioned send of ints received as floats (TY002): the message of a partitioned
 * operation is all its partitions, matched like a persistent send. Send and receive
 * partitions differ (4 x 2 and 2 x 4 elements), which is allowed; the types are not.
 */
/* mpicheck: ranks=2 mpi=mpich */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[8] = {0};
    float values[8];
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Psend_init(data, 4, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req); /* expect: TY002 */
        MPI_Start(&req);
        MPI_Pready_range(0, 3, req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Precv_init(values, 2, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req); /* expect: TY002 */
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
    MPI_Finalize();
    return 0;
}
