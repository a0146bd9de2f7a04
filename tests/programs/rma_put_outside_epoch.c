/*
 * An MPI_Put before the first MPI_Win_fence (RM001): no access epoch is open. The MPI
 * library may reject the call and abort; the finding must still be reported.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, x = 42;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&value, sizeof value, sizeof value, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0)
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* expect: RM001 */
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
