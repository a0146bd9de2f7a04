/*
 * MPI_MODE_NOCHECK on an exclusive lock while another origin locks the same target:
 * between two barriers, rank 1 locks rank 0 with MPI_LOCK_EXCLUSIVE and MPI_MODE_NOCHECK
 * and rank 2 locks rank 0 with MPI_LOCK_SHARED. NOCHECK promises that no other process
 * holds or attempts a conflicting lock during the epoch (MPI 4.1 §12.5.5), so the MPI does
 * not take the lock, and the two epochs may run at once; nothing orders them.
 * Expected verdict: RM007 at rank 1's MPI_Win_lock.
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
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, MPI_MODE_NOCHECK, win); /* expect: RM007 */
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    } else if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
