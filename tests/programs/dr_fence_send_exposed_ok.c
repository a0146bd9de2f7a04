/*
 * Correct twin of dr_fence_send_exposed.c: rank 1 puts into element 0 of rank 0's window
 * in a fence epoch; in the same epoch rank 0 sends element 1, which no origin accesses,
 * and after the closing fence it sends element 0. Then, in an exposure epoch, rank 1 gets
 * element 2 of rank 0 while rank 0 sends it (both only read it), and rank 0 receives into
 * element 0 only after MPI_Win_wait.
 * Expected verdict: none.
 */
/* mpicheck: ranks=3 checks-itself */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, slots[4] = {0, 5, 7, 0}, got[2] = {-1, -1}, seen = -1, zero = 0, one = 1;
    MPI_Win win;
    MPI_Group world, group;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    else if (rank == 0)
        MPI_Send(&slots[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(&got[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Send(&slots[0], 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    else if (rank == 2)
        MPI_Recv(&got[1], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    if (rank == 0) {
        MPI_Group_incl(world, 1, &one, &group);
        MPI_Win_post(group, 0, win);
        MPI_Send(&slots[2], 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
        MPI_Win_wait(win);
        MPI_Recv(&slots[0], 1, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Group_free(&group);
    } else if (rank == 1) {
        MPI_Group_incl(world, 1, &zero, &group);
        MPI_Win_start(group, 0, win);
        MPI_Get(&seen, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Group_free(&group);
        if (seen != 7) {
            fprintf(stderr, "rank 1: got %d\n", seen);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        MPI_Recv(&seen, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&seen, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        if (got[0] != 5 || got[1] != 1 || seen != 7) {
            fprintf(stderr, "rank 2: got %d %d %d\n", got[0], got[1], seen);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
