/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 13:
 * situation where a deadlock will never occur (the progress example of the MPI
 * standard, section 3.7.4).
 *
 * Rank 0 sends tag 0 synchronously, then tag 1 in standard mode. Rank 1 posts
 * an MPI_Irecv for tag 0, receives tag 1 with a blocking MPI_Recv and only then
 * waits for the tag-0 request. The MPI_Ssend completes as soon as the MPI_Irecv
 * is posted, without waiting for rank 1's MPI_Wait; the standard-mode send is
 * matched by a posted blocking receive, so no buffering is needed either.
 * Expected verdict: none.
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

    if (rank == 0) {
        MPI_Ssend(out, 4, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
        MPI_Send(out, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(in, 4, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r1);
        MPI_Recv(out, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r1, MPI_STATUS_IGNORE);
    }
    (void)r2;

    MPI_Finalize();
    return 0;
}
