/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 19:
 * collective operation with a missing call, root = 2 (the rank that does not
 * call it).
 *
 * Ranks 0 and 1 call MPI_Gather with root 2; rank 2 never calls it. A
 * non-root's part of a gather is a send to the root, which MPICH and Open MPI
 * buffer for tiny messages, so ranks 0 and 1 return and the run completes
 * ("may be an actual or potential deadlock depending on which processor is the
 * root"). The program is still erroneous. Expected verdict: CO001 at the
 * MPI_Gather line; no deadlock code, since the run completes and the missing
 * call is the finding. Without mpicheck the program completes.
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
        MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 2, MPI_COMM_WORLD); /* expect: CO001 */

    MPI_Finalize();
    return 0;
}
