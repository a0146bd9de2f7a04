/*
 * MPI_MODE_NOCHECK that nothing backs: each rank posts an exposure epoch to the other and
 * at once starts an access epoch toward it, both with MPI_MODE_NOCHECK. NOCHECK on the
 * start promises that the peer's matching post has already completed, on the post that the
 * peer's start has not yet occurred (MPI 4.1 §12.5.5); no message or collective orders them.
 * This is tests/programs/ar_rma_asserts_ok.c before its barrier: under Open MPI it hung in
 * MPI_Win_wait about once in 40 runs. The finding does not depend on the timing.
 * Correct twin: ar_rma_asserts_ok.c (an MPI_Barrier between post and start).
 * Expected verdict: RM007 at the start and at the post.
 */
/* mpicheck: ranks=2 */
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
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &other);
    MPI_Win_post(other, MPI_MODE_NOCHECK | MPI_MODE_NOPUT, win); /* expect: RM007 */
    MPI_Win_start(other, MPI_MODE_NOCHECK, win); /* expect: RM007 */
    MPI_Get(&y, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
