/*
 * A cycle through two windows: rank 0 is the target of window A and the origin of
 * window B, rank 1 the other way round, and each waits for its exposure epoch to end
 * before it starts its own access epoch. Rank 0's MPI_Win_wait needs rank 1's
 * MPI_Win_complete on A, which comes after rank 1's MPI_Win_wait on B, which needs rank
 * 0's MPI_Win_complete on B, after its wait: an actual deadlock on any MPI.
 * Expected verdict: DL001 at both MPI_Win_wait calls.
 * Without mpicheck the program hangs (mpicheck must end it).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, peer, a = 0, b = 0;
    MPI_Win win_a, win_b;
    MPI_Group world_group, partner;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = 1 - rank;
    MPI_Win_create(&a, sizeof a, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win_a);
    MPI_Win_create(&b, sizeof b, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win_b);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 1, &peer, &partner);

    if (rank == 0) {
        MPI_Win_post(partner, 0, win_a);
        MPI_Win_wait(win_a); /* expect: DL001 */
        MPI_Win_start(partner, 0, win_b);
        MPI_Put(&rank, 1, MPI_INT, peer, 0, 1, MPI_INT, win_b);
        MPI_Win_complete(win_b);
    } else {
        MPI_Win_post(partner, 0, win_b);
        MPI_Win_wait(win_b); /* expect: DL001 */
        MPI_Win_start(partner, 0, win_a);
        MPI_Put(&rank, 1, MPI_INT, peer, 0, 1, MPI_INT, win_a);
        MPI_Win_complete(win_a);
    }

    MPI_Win_free(&win_b);
    MPI_Win_free(&win_a);
    MPI_Group_free(&partner);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
