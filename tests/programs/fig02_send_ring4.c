/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 2:
 * dependency cycle with four processes, mpi_send (standard mode) variant.
 *
 * Every rank sends to its right neighbour, then receives from its left
 * neighbour. The messages are tiny, so MPICH and Open MPI buffer them and the
 * run completes; without buffering the four sends would wait on each other in a
 * cycle. Expected verdict: DL002 (potential deadlock) at the MPI_Send (all
 * ranks, one line). Without mpicheck the program completes.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, left, right;
    double out[4] = {1, 2, 3, 4}, in[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;

    MPI_Send(out, 4, MPI_DOUBLE, right, 7, MPI_COMM_WORLD); /* expect: DL002 */
    MPI_Recv(in, 4, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return 0;
}
