/*
 * A wildcard probe and the receive of what it found are a wildcard receive: rank 0 probes
 * with MPI_ANY_SOURCE, receives from status.MPI_SOURCE, then receives once from rank 2;
 * ranks 1 and 2 each send one message to rank 0. If the probe finds rank 1's message the
 * program completes; if it finds rank 2's, the receive that follows takes rank 2's
 * message and the receive from rank 2 waits forever. Rank 2 sleeps 500 ms before sending,
 * so the traced run is the lucky one. Expected verdict: DL003 (another matching
 * deadlocks) and MR001 (message race) at the wildcard MPI_Probe.
 *
 * Its wildcard-receive twin: std_wildcard_then_specific_recv.c.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int x = 0, y = 0;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    switch (rank) {
    case 0:
        MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); /* expect: DL003, MR001 */
        MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case 1:
        x = 1;
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        break;
    case 2:
        y = 2;
        usleep(500 * 1000);
        MPI_Send(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        break;
    }

    MPI_Finalize();
    return 0;
}
