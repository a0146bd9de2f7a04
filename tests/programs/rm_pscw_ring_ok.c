/*
 * Correct twin of the rm_pscw_* programs: a ring of active-target epochs, repeated. Each
 * rank exposes its window to its left neighbour and writes into its right neighbour's
 * window. The post group is built with MPI_Group_incl, the start group with
 * MPI_Group_excl (everybody but the right neighbour left out), and a second round uses
 * groups from MPI_Group_range_incl and MPI_Group_difference of the window's own group
 * (MPI_Win_get_group). Every rank posts before it starts, so no MPI_Win_start can wait
 * for ever, whichever call the MPI blocks in.
 * Expected verdict: none.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, left, right, round, i, n = 0;
    int slot = -1, others[8], range[1][3];
    MPI_Win win;
    MPI_Group world_group, win_group, exposure, access, rest, right_only;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 8) {
        if (rank == 0) fprintf(stderr, "this program needs at most 8 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    MPI_Win_create(&slot, sizeof slot, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 1, &left, &exposure);
    for (i = 0; i < size; i++)
        if (i != right) others[n++] = i;
    MPI_Group_excl(world_group, n, others, &access);

    for (round = 0; round < 3; round++) {
        MPI_Win_post(exposure, 0, win);
        MPI_Win_start(access, 0, win);
        MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        if (slot != left) {
            fprintf(stderr, "rank %d: got %d, expected %d\n", rank, slot, left);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        slot = -1;
    }
    MPI_Group_free(&access);
    MPI_Group_free(&exposure);

    /* Second round: groups from the window's group. */
    MPI_Win_get_group(win, &win_group);
    range[0][0] = left;
    range[0][1] = left;
    range[0][2] = 1;
    MPI_Group_range_incl(win_group, 1, range, &exposure);
    MPI_Group_incl(win_group, 1, &right, &right_only);
    MPI_Group_difference(win_group, right_only, &rest);
    MPI_Group_difference(win_group, rest, &access);
    MPI_Win_post(exposure, 0, win);
    MPI_Win_start(access, 0, win);
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);

    MPI_Group_free(&access);
    MPI_Group_free(&rest);
    MPI_Group_free(&right_only);
    MPI_Group_free(&exposure);
    MPI_Group_free(&win_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
