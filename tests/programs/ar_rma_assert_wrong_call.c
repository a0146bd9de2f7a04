/*
 * A fence given MPI_MODE_NOCHECK, an assertion of MPI_Win_start/MPI_Win_lock that
 * MPI_Win_fence does not define (AR015).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int x = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Win_create(&x, sizeof x, sizeof x, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOCHECK, win); /* expect: AR015 */
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
