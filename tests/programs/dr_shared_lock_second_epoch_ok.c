/*
 * Correct twin of dr_shared_lock_second_epoch.c: rank 1 flushes its put of element 0
 * before the message to rank 2, so the put is complete at rank 0 before rank 2 reads it,
 * although both shared-lock epochs are open at the same time. Rank 1 then sets a flag with
 * MPI_Accumulate, which rank 2 polls with MPI_Fetch_and_op before reading element 3 that
 * rank 1 wrote and flushed before setting the flag (atomic accesses order them).
 * Expected verdict: none.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, got = 0, more = 0, flag = 0, one = 1, zero = 0, token = 0, slots[4] = {0};
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
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
        MPI_Put(&rank, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_REPLACE, win);
        MPI_Win_unlock(0, win);
    } else if (rank == 2) {
        MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        while (!flag) {
            MPI_Fetch_and_op(&zero, &flag, MPI_INT, 0, 2, MPI_NO_OP, win);
            MPI_Win_flush(0, win);
        }
        MPI_Get(&more, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        if (got != 1 || more != 1) {
            fprintf(stderr, "rank 2 read %d and %d, not 1 and 1\n", got, more);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
