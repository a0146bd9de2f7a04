/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 12:
 * situation where a deadlock will never occur.
 *
 * Both ranks post an MPI_Irecv from the other, then do a synchronous MPI_Ssend
 * to the other, then wait for the receive. Each MPI_Ssend finds its receive
 * already posted, and by the progress rule (MPI 3.7.4) it completes even though
 * the receiver has not reached MPI_Wait yet. Expected verdict: none (a checker
 * that treats the receive as pending until MPI_Wait would wrongly report a
 * cycle).
 *
 * (The figure body is not in the seed text; reconstructed from the paper's text.)
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, peer;
    double out[4] = {1, 2, 3, 4}, in[4] = {0};
    MPI_Request r1, r2;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = 1 - rank;

    MPI_Irecv(in, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r1);
    MPI_Ssend(out, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
    MPI_Wait(&r1, MPI_STATUS_IGNORE);
    (void)r2;

    MPI_Finalize();
    return 0;
}
