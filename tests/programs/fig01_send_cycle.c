/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 1:
 * dependency cycle with two processes, mpi_send (standard mode) variant.
 *
 * Both ranks send to each other first and receive afterwards. The messages are
 * tiny (4 doubles), so MPICH and Open MPI both buffer them (eager protocol) and
 * the run completes; an implementation that does not buffer would deadlock.
 * Expected verdict: DL002 (potential deadlock) at both MPI_Send calls. Without
 * mpicheck the program completes.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    if (rank == 0) {
        MPI_Send(a, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* expect: DL002 */
        MPI_Recv(b, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(b, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD); /* expect: DL002 */
        MPI_Recv(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return 0;
}
