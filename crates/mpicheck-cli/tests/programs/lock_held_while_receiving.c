/*
 * A lock held across a receive from the origin that waits for it: rank 0 takes an
 * exclusive lock on its own window, reads it with MPI_Get and MPI_Win_flush, and, still
 * holding the lock, receives from rank 1; rank 1 locks rank 0's window exclusively, puts
 * and unlocks before it sends. The lock rank 1 asks for is granted only after rank 0's
 * MPI_Win_unlock (MPI 4.1 §12.5.3), so rank 1
 * waits in MPI_Win_lock or, where the lock is granted lazily, in MPI_Win_unlock, and never
 * sends: an actual deadlock under MPICH. Open MPI 4.1 hangs with some osc components and
 * completes with others (rank 1's lock is granted while rank 0 holds its own).
 * Correct twin: tests/programs/rm_lock_released_before_recv_ok.c.
 * Expected verdict: DL001 at rank 0's MPI_Recv (marked `DL001`) wherever it hangs, nothing
 * where it completes. Run by tests/rma_programs.rs: its verdict depends on the MPI.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, slot = 0, value = 7, token = 0, seen;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_create(&slot, sizeof slot, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        /* The flush makes the MPI acquire the lock now (Open MPI too defers it). */
        MPI_Get(&seen, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        /* Bug: the lock is still held while waiting for the origin that needs it. */
        MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* DL001 */
        MPI_Win_unlock(0, win);
    } else {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
