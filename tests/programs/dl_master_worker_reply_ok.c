/*
 * Master-worker: rank 0 takes each worker's result with MPI_ANY_SOURCE and replies to
 * whoever sent it (status.MPI_SOURCE); each worker sends a result and waits for the reply,
 * ROUNDS times. Which worker's result comes first depends on timing (a message race), but
 * every order completes: the reply goes to the worker that sent. The trace records the
 * reply's destination as a plain rank; mpicheck must see that it follows the wildcard's
 * source (every reply names it, and the sources vary), not replay another matching with
 * the replies sent to the recorded ranks. Expected verdict: MR001 at the wildcard
 * MPI_Recv, and no potential deadlock (DL003).
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>

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
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); /* expect: MR001 */
            MPI_Send(&x, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD);
        }
    } else {
        for (int i = 0; i < ROUNDS; i++) {
            x = rank * 1000 + i;
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
