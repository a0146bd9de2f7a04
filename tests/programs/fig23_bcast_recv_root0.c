/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 23:
 * interleaved collective and send-receive operations, root = 0.
 *
 * Rank 0 calls MPI_Bcast (root 0) and then sends to rank 2; rank 2 first
 * receives from rank 0 and only then calls MPI_Bcast. The root of a broadcast
 * only sends, and MPICH and Open MPI buffer the tiny message, so rank 0 leaves
 * the broadcast, sends, and the run completes. Were MPI_Bcast synchronizing,
 * rank 0 would wait in it for rank 2, which waits in MPI_Recv for rank 0: the
 * code is incorrect ("even if the collective operations and the point-to-point
 * operations are synchronizing no deadlock will occur" is violated). Expected
 * verdict: DL002 (potential deadlock: completes only because the collective did
 * not synchronize) at rank 0's MPI_Bcast and rank 2's MPI_Recv. Without
 * mpicheck the program completes.
 *
 * (Root = 1 is left out: whether it hangs depends on the broadcast algorithm.)
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    double a1 = 0.0, a[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    if (rank == 0) {
        a1 = 42.0;
        MPI_Bcast(&a1, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* expect: DL002 */
        MPI_Send(a, 4, MPI_DOUBLE, 2, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Bcast(&a1, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL002 */
        MPI_Bcast(&a1, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
