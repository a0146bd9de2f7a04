/*
 * An access epoch whose start group lacks its target: rank 0 exposes its window to rank 1
 * and waits, but rank 1 builds its start group from its own rank instead of rank 0's, so
 * its MPI_Win_start/MPI_Win_complete never pair with rank 0's MPI_Win_post (MPI 4.1
 * §12.5.2). Rank 0's MPI_Win_wait never returns; rank 1 blocks in MPI_Win_start or
 * MPI_Win_complete (waiting for a post from itself) or, on an MPI where those do not
 * wait, in MPI_Win_free: an actual deadlock either way.
 * Expected verdict: DL001 at rank 0's MPI_Win_wait (and where rank 1 blocks), and RM008 at
 * the post (rank 1 never starts toward rank 0) and at the start (rank 1 never posts to itself).
 * Without mpicheck the program hangs (mpicheck must end it).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, origin_rank = 1, slot = 0;
    MPI_Win win;
    MPI_Group world_group, origin, access;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_create(&slot, sizeof slot, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);

    if (rank == 0) {
        MPI_Group_incl(world_group, 1, &origin_rank, &origin);
        MPI_Win_post(origin, 0, win); /* expect: RM008 */
        MPI_Win_wait(win); /* expect: DL001 */
        MPI_Group_free(&origin);
    } else {
        /* Bug: the target is rank 0, not this rank. */
        MPI_Group_incl(world_group, 1, &rank, &access);
        MPI_Win_start(access, 0, win); /* expect: RM008 */
        MPI_Win_complete(win);
        MPI_Group_free(&access);
    }

    MPI_Win_free(&win);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
