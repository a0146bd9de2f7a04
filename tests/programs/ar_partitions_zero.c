/*
 * A partitioned send of no partitions (AR016): the count of partitions is computed from
 * a problem size that is 0 here.
 */
/* mpicheck: ranks=2 mpi=mpich */
#include <mpi.h>

#define PARTS 4
#define COUNT 2

int main(int argc, char **argv)
{
    int rank, data[PARTS * COUNT] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int parts = COUNT / 4; /* 0 */
        MPI_Psend_init(data, parts, COUNT, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req); /* expect: AR016 */
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
    } else if (rank == 1) {
        MPI_Precv_init(data, PARTS, COUNT, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
    }
    MPI_Finalize();
    return 0;
}
