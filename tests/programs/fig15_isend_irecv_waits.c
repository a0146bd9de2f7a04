/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 15:
 * no actual or potential deadlock situation.
 *
 * The same calls as figure 14, except that both MPI_Wait calls come after both
 * MPI_Isend and MPI_Irecv: every send finds its receive posted before anybody
 * waits, so no buffering is needed. Expected verdict: none.
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

    MPI_Isend(out, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r1);
    MPI_Irecv(in, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r2);
    MPI_Wait(&r1, MPI_STATUS_IGNORE);
    MPI_Wait(&r2, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return 0;
}
