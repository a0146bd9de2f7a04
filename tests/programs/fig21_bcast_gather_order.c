/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 21:
 * incorrectly ordered collective operations.
 *
 * Ranks 0 and 1 call MPI_Bcast then MPI_Gather; rank 2 calls MPI_Gather then
 * MPI_Bcast (both rooted at 0). "All processes in a communicator [must] call
 * distinct collective routines in the same order." Expected verdict: CO001 at
 * the first position: the MPI_Bcast of ranks 0-1 and the MPI_Gather of rank 2.
 * No deadlock code: with MPICH 4.0 and Open MPI 4.1 both collectives only need
 * buffered sends from the root / to the root here, so the run completes (the
 * mismatch is the finding). Without mpicheck the program completes.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, one, all[3] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    one = rank + 1;

    if (rank != 2) {
        MPI_Bcast(&one, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect: CO001 */
        MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect: CO001 */
        MPI_Bcast(&one, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
