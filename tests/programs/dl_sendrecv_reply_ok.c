/*
 * Master-worker with MPI_Sendrecv replies: rank 0 takes each worker's result with
 * MPI_ANY_SOURCE, then in one MPI_Sendrecv replies to whoever sent it (status.MPI_SOURCE)
 * and takes that worker's acknowledgement (from status.MPI_SOURCE again). Each worker
 * sends a result, waits for the reply, acknowledges, ROUNDS times. Which worker's result
 * comes first depends on timing (a message race), but every order completes: both halves
 * of the sendrecv name the worker that sent. The trace records them as plain ranks;
 * mpicheck must see that each half follows the wildcard's source, not replay another
 * matching with the reply sent to (and the acknowledgement expected from) the recorded
 * worker. Expected verdict: MR001 at the wildcard MPI_Recv, and no potential deadlock.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

#define ROUNDS 20

int main(int argc, char **argv)
{
    int rank, size, x = 0, ack = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 0; i < ROUNDS * (size - 1); i++) {
            MPI_Status st;
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); /* expect: MR001 */
            MPI_Sendrecv(&x, 1, MPI_INT, st.MPI_SOURCE, 1, &ack, 1, MPI_INT, st.MPI_SOURCE, 2,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        for (int i = 0; i < ROUNDS; i++) {
            x = rank * 1000 + i;
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
