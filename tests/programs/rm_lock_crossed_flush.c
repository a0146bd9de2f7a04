/*
 * Crossed exclusive locks, each held by a rank stuck inside its own epoch: each rank locks
 * its own window memory exclusively, puts and flushes (the flush returns, so the lock is
 * granted), then locks the other rank's memory. That lock waits for the other rank's
 * lock, which the other rank holds while it waits the same way: an actual deadlock on any
 * MPI (MPI 4.1 §12.5.3). Both MPICH and Open MPI block in the second MPI_Win_lock here
 * (an MPI that grants lazily would block in the flush after it instead).
 * Expected verdict: DL001 at both second locks.
 * Without mpicheck the program hangs (mpicheck must end it).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, other, slots[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    other = 1 - rank;
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    MPI_Put(&rank, 1, MPI_INT, rank, 0, 1, MPI_INT, win);
    MPI_Win_flush(rank, win);
    MPI_Barrier(MPI_COMM_WORLD); /* both own locks are granted before either asks */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, other, 0, win); /* expect: DL001 */
    MPI_Put(&rank, 1, MPI_INT, other, 1, 1, MPI_INT, win);
    MPI_Win_flush(other, win);
    MPI_Win_unlock(other, win);
    MPI_Win_unlock(rank, win);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
