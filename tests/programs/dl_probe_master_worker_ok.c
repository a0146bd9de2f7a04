/*
 * Master/worker with a probe: rank 0 probes with MPI_ANY_SOURCE and MPI_ANY_TAG, receives
 * the message it found (status.MPI_SOURCE, status.MPI_TAG), and replies to its sender
 * with its tag; each worker tags its requests with its rank and waits for the reply. Which
 * worker's request the probe finds first depends on timing (a message race), and every
 * order completes: the receive takes what the probe found, the reply goes back to its
 * sender. mpicheck must not report a potential deadlock that a receive from the recorded
 * source would make.
 * Expected verdict: MR001 at the wildcard MPI_Probe, and no potential deadlock (DL003).
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

#define ROUNDS 20

int main(int argc, char **argv)
{
    int rank, size, x = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 0; i < ROUNDS * (size - 1); i++) {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* expect: MR001 */
            MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD);
        }
    } else {
        for (int i = 0; i < ROUNDS; i++) {
            x = rank * 1000 + i;
            MPI_Send(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }

    MPI_Finalize();
    return 0;
}
