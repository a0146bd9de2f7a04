/*
 * Master-worker with few tasks: rank 0 takes each worker's result with MPI_ANY_SOURCE and
 * replies to whoever sent it (status.MPI_SOURCE), but each worker sends only two results.
 * Which worker's result comes first depends on timing (a message race), and every order
 * completes: the reply goes to the worker that sent. Four replies to two workers are too
 * few to tell from the trace that the reply follows the wildcard's source by design (it
 * would by chance once in 16); mpicheck must not report a potential deadlock that only
 * replies sent to the recorded workers would make. Expected verdict: MR001 at the wildcard
 * MPI_Recv, and no potential deadlock (DL003).
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 2

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
