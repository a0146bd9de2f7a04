/*
 * Master-worker whose master takes each result with the receive half of an MPI_Sendrecv
 * for MPI_ANY_SOURCE (its send half goes to MPI_PROC_NULL), then replies with MPI_Send to
 * whoever sent it (status.MPI_SOURCE); each worker sends a result and waits for the
 * reply, ROUNDS times. The sendrecv's receive half is a wildcard receive like any other:
 * it races (MR001), and the replies follow the source it took, so every matching
 * completes. Expected verdict: MR001 at the MPI_Sendrecv, and no potential deadlock.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

#define ROUNDS 20

int main(int argc, char **argv)
{
    int rank, size, x = 0, none = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 0; i < ROUNDS * (size - 1); i++) {
            MPI_Status st;
            MPI_Sendrecv(&none, 1, MPI_INT, MPI_PROC_NULL, 3, &x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); /* expect: MR001 */
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
