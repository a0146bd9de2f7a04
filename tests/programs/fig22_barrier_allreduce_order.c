/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 22:
 * incorrectly ordered collective operations.
 *
 * Rank 0 calls MPI_Barrier then MPI_Allreduce; ranks 1 and 2 call MPI_Allreduce
 * then MPI_Barrier. Expected verdict: CO001 at the first position: rank 0's
 * MPI_Barrier and the MPI_Allreduce of ranks 1-2; and DL001 at the same two
 * lines, since with MPICH 4.0 and Open MPI 4.1 the mismatched barrier and
 * allreduce wait for each other forever. Without mpicheck the program hangs
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

    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD); /* expect: CO001, DL001 */
        MPI_Allreduce(&one, &all[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Allreduce(&one, &all[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: CO001, DL001 */
        MPI_Barrier(MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
