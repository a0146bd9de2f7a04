/*
 * Conflicting accesses in an origin's second shared-lock epoch between the same two
 * barriers: rank 1 first writes its own element of rank 0 (no conflict), then, in a
 * second epoch, element 0, which rank 2 reads in its own shared-lock epoch. A message from
 * rank 1 sent inside that second epoch, before the unlock, does not order the put: it
 * completes only at MPI_Win_unlock (MPI 4.1 §12.5.3, §12.7.1).
 * Expected verdict: DR003 at the MPI_Put of element 0.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, got = 0, token = 0, slots[4] = {0};
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
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* expect: DR003 */
        MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
        MPI_Win_unlock(0, win);
    } else if (rank == 2) {
        MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
