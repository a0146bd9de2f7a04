/*
 * A ring of active-target epochs whose start groups point the wrong way: each rank exposes
 * its window to its left neighbour (MPI_Win_post with the group of its left neighbour) and
 * also starts its access epoch toward its left neighbour, which exposed its window to its
 * own left neighbour, not to this rank (MPI 4.1 §12.5.2). MPICH counts post and complete
 * notifications without checking who sent them, so the ring may complete under MPICH; it is
 * erroneous all the same, and other MPIs may hang in MPI_Win_start or MPI_Win_wait.
 * Correct twin: tests/programs/rm_pscw_ring_ok.c (the start group is the right neighbour).
 * Expected verdict: RM008 at the post and the start (lines marked `RM008`), under MPICH
 * with DL002 (a start that waited for its posts would deadlock), under Open MPI with DL001.
 * Run by tests/rma_programs.rs: the tier-2 harness cannot expect a code per MPI.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, left, slot = -1;
    MPI_Win win;
    MPI_Group world_group, neighbour;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        if (rank == 0) fprintf(stderr, "this program needs at least 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    left = (rank + size - 1) % size;
    MPI_Win_create(&slot, sizeof slot, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 1, &left, &neighbour);

    MPI_Win_post(neighbour, 0, win); /* RM008 */
    /* Bug: the access epoch should go to the right neighbour, which exposes to this rank. */
    MPI_Win_start(neighbour, 0, win); /* RM008 */
    MPI_Put(&rank, 1, MPI_INT, left, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);

    MPI_Group_free(&neighbour);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
