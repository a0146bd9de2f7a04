/*
 * Correct twin of rm_lock_crossed_flush.c: each rank unlocks its own memory before it
 * locks the other rank's, so no rank holds a lock while it waits for one.
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
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
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, other, 0, win);
    MPI_Put(&rank, 1, MPI_INT, other, 1, 1, MPI_INT, win);
    MPI_Win_flush(other, win);
    MPI_Win_unlock(other, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (slots[0] != rank || slots[1] != other) {
        fprintf(stderr, "rank %d holds %d %d\n", rank, slots[0], slots[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
