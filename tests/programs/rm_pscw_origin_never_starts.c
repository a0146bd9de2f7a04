/*
 * Active-target epoch whose origin never starts: rank 0 exposes its window to rank 1
 * (MPI_Win_post with a group of rank 1) and waits for the epoch to end, but rank 1 never
 * calls MPI_Win_start/MPI_Win_complete and goes on to MPI_Win_free, which waits for rank 0.
 * MPI_Win_wait returns only after every origin of the post group called MPI_Win_complete
 * (MPI 4.1 §12.5.2): an actual deadlock.
 * Expected verdict: DL001 at rank 0's MPI_Win_wait (and rank 1's MPI_Win_free), and RM008
 * at the post: its group names rank 1, which never starts an epoch toward rank 0.
 * Without mpicheck the program hangs (mpicheck must end it).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, slot = 0, one = 1;
    MPI_Win win;
    MPI_Group world_group, origin;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_create(&slot, sizeof slot, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 1, &one, &origin);

    if (rank == 0) {
        MPI_Win_post(origin, 0, win); /* expect: RM008 */
        MPI_Win_wait(win); /* expect: DL001 */
    }
    /* Bug: rank 1 should call MPI_Win_start(group of rank 0), MPI_Put, MPI_Win_complete. */

    MPI_Win_free(&win); /* expect: DL001 */
    MPI_Group_free(&origin);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
