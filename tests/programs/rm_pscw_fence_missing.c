/*
 * A fence one member of the window never calls: MPI_Win_fence is collective over the
 * window's group (MPI 4.1 §12.5.1). Rank 1 skips it and waits in MPI_Barrier, which rank 0
 * never reaches: an actual deadlock.
 * Expected verdict: DL001 at rank 0's MPI_Win_fence and rank 1's MPI_Barrier, and CO001
 * (the window's communicator sees MPI_Win_fence on one rank, MPI_Barrier on the other).
 * Without mpicheck the program hangs (mpicheck must end it).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, slot = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_create(&slot, sizeof slot, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(&rank, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win); /* expect: CO001, DL001 */
    }
    /* Bug: rank 1 skips the fence that ends the epoch. */
    MPI_Barrier(MPI_COMM_WORLD); /* expect: DL001 */

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
