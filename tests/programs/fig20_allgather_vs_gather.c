/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 20:
 * mismatched collective operations.
 *
 * Ranks 0 and 1 call MPI_Allgather while rank 2 calls MPI_Gather (root 0) at the
 * same position on MPI_COMM_WORLD: different collectives in the same position.
 * Expected verdict: CO001 at both call lines, and DL001 at the MPI_Allgather:
 * with MPICH 4.0 and Open MPI 4.1 rank 2's gather contribution is a buffered
 * send to rank 0 and returns, while ranks 0 and 1 wait in MPI_Allgather for a
 * contribution from rank 2 that never comes. Without mpicheck the program hangs
 * (mpicheck must end it).
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
        MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD); /* expect: CO001, DL001 */
    else
        MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect: CO001 */

    MPI_Finalize();
    return 0;
}
