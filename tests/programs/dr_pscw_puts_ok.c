/*
 * Correct twin of dr_pscw_puts_same_element.c: rank 0 exposes its window to ranks 1 and 2
 * in one epoch, and each origin puts into its own element, then adds to a shared counter
 * with MPI_Accumulate (concurrent accumulates with one operation and type are atomic) and
 * reads the counter back with MPI_Get_accumulate and MPI_NO_OP, which MPI orders after its
 * own accumulate. A second exposure epoch lets rank 2 overwrite rank 1's element: the
 * epochs are ordered by MPI_Win_wait and the next MPI_Win_post.
 * Expected verdict: none.
 */
/* mpicheck: ranks=3 checks-itself */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, slots[4] = {0}, others[2] = {1, 2}, zero = 0, one = 1, seen = -1, two = 2;
    MPI_Win win;
    MPI_Group world, group, second;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Group_incl(world, 2, others, &group);
        MPI_Win_post(group, 0, win);
        MPI_Win_wait(win);
        if (slots[1] != 1 || slots[2] != 2 || slots[3] != 2) {
            fprintf(stderr, "rank 0: got %d %d %d\n", slots[1], slots[2], slots[3]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Group_incl(world, 1, &two, &second);
        MPI_Win_post(second, 0, win);
        MPI_Win_wait(win);
        MPI_Group_free(&second);
        if (slots[1] != 2) {
            fprintf(stderr, "rank 0: got %d after the second epoch\n", slots[1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        MPI_Group_incl(world, 1, &zero, &group);
        MPI_Win_start(group, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_SUM, win);
        MPI_Get_accumulate(NULL, 0, MPI_INT, &seen, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_NO_OP,
                           win);
        MPI_Win_complete(win);
        if (seen < 1 || seen > 2) {
            fprintf(stderr, "rank %d: read %d back\n", rank, seen);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 2) {
            MPI_Win_start(group, 0, win);
            MPI_Put(&rank, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
