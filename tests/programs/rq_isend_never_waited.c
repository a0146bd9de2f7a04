/*
 * A nonblocking send whose request is never completed: MPI-CHECK 2.0 warns at
 * MPI_Finalize about non-blocking calls without a matching wait. Rank 0 starts an
 * MPI_Isend and finalizes without waiting; rank 1 receives the message, so nothing
 * hangs, but the request is still pending at MPI_Finalize (RQ001 at the MPI_Isend).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req); /* expect: RQ001 */
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
