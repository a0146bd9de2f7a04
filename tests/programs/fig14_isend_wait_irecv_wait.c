/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 14:
 * potential deadlock situation.
 *
 * Both ranks start an MPI_Isend to the other and wait for it before posting
 * their MPI_Irecv. Waiting for a standard-mode send completes only if the
 * message is buffered, and each receive is posted after the other rank's wait:
 * without buffering both MPI_Wait calls would block forever. The messages are
 * tiny, so MPICH and Open MPI buffer them and the run completes. Expected
 * verdict: DL002 (potential deadlock) at the first MPI_Wait (both ranks, one
 * line). Without mpicheck the program completes.
 *
 * (The figure body is not in the seed text; reconstructed from the paper's text.)
 */
/* mpicheck: ranks=2 */
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
    MPI_Wait(&r1, MPI_STATUS_IGNORE); /* expect: DL002 */
    MPI_Irecv(in, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r2);
    MPI_Wait(&r2, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return 0;
}
