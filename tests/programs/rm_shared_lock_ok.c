/*
 * Correct twin of rm_shared_lock_race.c: between barriers, ranks 1 and 2 write element 0
 * of rank 0 under MPI_LOCK_EXCLUSIVE (the epochs are serialized), then write their own
 * elements under MPI_LOCK_SHARED (disjoint bytes), then add into element 3 under
 * MPI_LOCK_SHARED with MPI_Accumulate and one operation (atomic per element), and read a
 * value that nobody writes in that stretch.
 * Expected verdict: none.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, got = 0, slots[4] = {0};
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
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&rank, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_SUM, win);
        MPI_Get(&got, 1, MPI_INT, 0, 2 - (rank - 1), 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&got, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    if (rank == 0 && (slots[0] < 1 || slots[1] != 1 || slots[2] != 2 || got != 3)) {
        fprintf(stderr, "unexpected window contents %d %d %d %d\n", slots[0], slots[1], slots[2], got);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
