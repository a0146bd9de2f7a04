/*
 * A partitioned send started again while active: its first epoch was not completed by a
 * wait or test (RQ004, as for any persistent request). MPI rejects it and aborts.
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
        MPI_Psend_init(data, PARTS, COUNT, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Start(&req);
        MPI_Pready_range(0, PARTS - 1, req);
        MPI_Start(&req); /* expect: RQ004 */
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
