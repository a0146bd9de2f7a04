/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 23:
 * interleaved collective and send-receive operations, root = 2.
 *
 * Rank 0 calls MPI_Bcast (root 2) and then sends to rank 2; rank 2 first
 * receives from rank 0 and only then calls MPI_Bcast. Rank 0 cannot leave the
 * broadcast before the root has sent the data, and the root is stuck in the
 * receive: "if the root processor for the mpi_bcast is process 2, then there
 * will be an actual deadlock". Expected verdict: DL001 at rank 0's MPI_Bcast
 * and rank 2's MPI_Recv (rank 1's MPI_Bcast waits as well, outside the cycle).
 * Without mpicheck the program hangs (mpicheck must end it).
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
        MPI_Bcast(&a1, 1, MPI_DOUBLE, 2, MPI_COMM_WORLD); /* expect: DL001 */
        MPI_Send(a, 4, MPI_DOUBLE, 2, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Bcast(&a1, 1, MPI_DOUBLE, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
        MPI_Bcast(&a1, 1, MPI_DOUBLE, 2, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
