/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 1:
 * dependency cycle with two processes, mpi_ssend variant.
 *
 * Both ranks start with a synchronous send to the other and only then receive.
 * MPI_Ssend cannot complete before the matching receive is posted, and each
 * matching receive comes after the other rank's MPI_Ssend: an actual deadlock
 * with every MPI implementation. Expected verdict: DL001 at both MPI_Ssend
 * calls. Without mpicheck the program hangs (mpicheck must end it).
 *
 * (The figure bodies are not in the seed text; this follows the paper's text.)
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
        MPI_Ssend(a, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* expect: DL001 */
        MPI_Recv(b, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Ssend(b, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD); /* expect: DL001 */
        MPI_Recv(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return 0;
}
