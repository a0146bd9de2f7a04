/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 19:
 * collective operation with a missing call, root = 0 (a rank that calls it).
 *
 * Ranks 0 and 1 call MPI_Gather with root 0; rank 2 never calls it and goes on
 * to MPI_Finalize. The root waits forever for rank 2's contribution: an actual
 * deadlock. Expected verdict: CO001 (a collective one rank never calls) and
 * DL001 (the run hangs in rank 0's MPI_Gather), both at the MPI_Gather line.
 * Without mpicheck the program hangs (mpicheck must end it).
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

    if (rank != 2)
        MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect: CO001, DL001 */

    MPI_Finalize();
    return 0;
}
