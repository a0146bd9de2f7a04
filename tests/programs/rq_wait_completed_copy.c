/*
 * A wait on a copy of a request handle whose request was already completed through
 * the original variable (RQ003 at the second MPI_Wait). The copy names a request MPI
 * has deallocated; MPI may fail, abort, or return at once.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4};
    MPI_Request req, copy;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        copy = req;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Wait(&copy, MPI_STATUS_IGNORE); /* expect: RQ003 */
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
