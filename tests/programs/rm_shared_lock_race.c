/*
 * Concurrent shared-lock epochs writing the same bytes: between two barriers, ranks 1 and
 * 2 each lock rank 0's window with MPI_LOCK_SHARED and put into element 0. A shared lock
 * lets both epochs run at the same time and nothing else orders them (MPI 4.1 §12.5.3,
 * §12.7.1): the value rank 0 ends up with changes from run to run.
 * Expected verdict: DR003 at the MPI_Put line.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, slots[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* expect: DR003 */
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
