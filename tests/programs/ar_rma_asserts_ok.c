/*
 * RMA assertions each given to a call that defines them: nothing to report. Fences that
 * open and close an epoch with no stores or puts, a post/start pair with no conflicting
 * lock (MPI_MODE_NOCHECK on both sides), a shared lock with MPI_MODE_NOCHECK.
 * MPI_MODE_NOCHECK on MPI_Win_start promises that the matching post has already completed,
 * so a barrier separates them; without it Open MPI may start the epoch before the post.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int x = 0, y, rank, peer;
    MPI_Win win;
    MPI_Group world, other;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Win_create(&x, sizeof x, sizeof x, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE, win);
    MPI_Get(&y, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOPUT, win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &other);
    MPI_Win_post(other, MPI_MODE_NOCHECK | MPI_MODE_NOPUT, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_start(other, MPI_MODE_NOCHECK, win);
    MPI_Get(&y, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, peer, MPI_MODE_NOCHECK, win);
    MPI_Get(&y, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Win_unlock(peer, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
