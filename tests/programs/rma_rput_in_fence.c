/*
 * A request-based MPI_Rput in a fence epoch (RM004): request-based RMA is valid only in
 * passive target epochs. The MPI library may reject the call and abort; the finding must
 * still be reported.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, x = 42;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&value, sizeof value, sizeof value, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Rput(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &req); /* expect: RM004 */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
