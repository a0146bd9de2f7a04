/*
 * MPI standard, "Correctness" of collective communication, first erroneous
 * example: two broadcasts in reverse order.
 *
 * Rank 0 broadcasts from root 0 then from root 1; rank 1 broadcasts from root 1
 * then from root 0. "If the operation is synchronizing then a deadlock will
 * occur": rank 0 would wait in the root-0 broadcast for rank 1, which waits in
 * the root-1 broadcast for rank 0. MPICH and Open MPI do not synchronize a
 * two-rank broadcast of 4 ints (each root just sends), so the run completes.
 * Expected verdict: DL002 (potential deadlock: completes only because the
 * collectives did not synchronize) at the first MPI_Bcast of each rank. The
 * calls are the same collective, so by the CO001 definition (different
 * collectives, or a missing one) this is not CO001.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int buf1[4] = {0}, buf2[4] = {0}, buf3[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf1[0] = 10 + rank;
    buf2[0] = 20 + rank;
    buf3[0] = 30 + rank;
    switch (rank) {
    case 0:
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD); /* expect: DL002 */
        MPI_Bcast(buf2, 4, MPI_INT, 1, MPI_COMM_WORLD);
        break;
    case 1:
        MPI_Bcast(buf2, 4, MPI_INT, 1, MPI_COMM_WORLD); /* expect: DL002 */
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD);
        break;
    }

    MPI_Finalize();
    return 0;
}
