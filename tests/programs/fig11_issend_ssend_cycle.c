/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 11:
 * dependency cycle involving non-blocking and blocking calls (synchronous-mode
 * variant: the actual deadlock).
 *
 * Rank 0 starts an MPI_Issend and waits for it before receiving; rank 1 does a
 * blocking MPI_Ssend before receiving. Neither synchronous send can complete
 * before the other rank posts its receive, which comes after: an actual
 * deadlock, which shows at rank 0's MPI_Wait. Expected verdict: DL001 at rank
 * 0's MPI_Wait and rank 1's MPI_Ssend. Without mpicheck the program hangs
 * (mpicheck must end it).
 *
 * (The figure body is not in the seed text; reconstructed from the paper's text.)
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    if (rank == 0) {
        MPI_Issend(a, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE); /* expect: DL001 */
        MPI_Recv(b, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Ssend(b, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD); /* expect: DL001 */
        MPI_Recv(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return 0;
}
