/*
 * Correct twin of dr_lock_put_then_get.c: rank 0 puts into element 0 of rank 1, completes
 * the put at the target with MPI_Win_flush, and only then gets the element back, in one
 * exclusive lock epoch; in a lock_all epoch it adds to element 1 twice with MPI_Accumulate
 * and reads it with MPI_Fetch_and_op and MPI_NO_OP (one origin's accumulates are ordered),
 * and gets element 2, waits for it with MPI_Win_flush_local_all (its data has arrived, so
 * it was read) and then overwrites it with a put.
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 checks-itself */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, slots[4] = {0, 0, 7, 0}, value = 42, back = -1, one = 1, sum = -1, old = -1;
    int dummy = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_flush(1, win);
        MPI_Get(&back, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);

        MPI_Win_lock_all(0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win);
        MPI_Accumulate(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win);
        MPI_Fetch_and_op(&dummy, &sum, MPI_INT, 1, 1, MPI_NO_OP, win);
        MPI_Get(&old, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
        MPI_Win_flush_local_all(win);
        MPI_Put(&value, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
        MPI_Win_unlock_all(win);
        if (back != 42 || sum != 2 || old != 7) {
            fprintf(stderr, "rank 0: got %d %d %d\n", back, sum, old);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
