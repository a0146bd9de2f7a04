/*
 * Rank 0 takes one message from each other rank in arrival order, the MUMPS way
 * (dmumps_solve_recv_and_treat_): MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) until a message
 * is there, then MPI_Recv from the status's source and tag, at one call site. The first
 * message is polled for; the others were sent with MPI_Isend before a barrier, so after it
 * each MPI_Iprobe succeeds at its first try: a single probe, which waits for nothing. Each
 * sender uses its own tag. Correct: every arrival order completes. mpicheck used to compile
 * the receive after a single probe with the source and tag it named; in a replay where the
 * polled probe found another sender first, the receive at the same line then waited for
 * the recorded sender's message with the other sender's tag, and DL003 reported a potential
 * deadlock that cannot happen. Expected verdict: MR001 at the wildcard MPI_Iprobe, and no
 * potential deadlock.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

/* Takes one message: polls for it, then receives what the probe found. */
static void take_one(void)
{
    int flag = 0, value;
    MPI_Status status;
    while (!flag)
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status); /* expect: MR001 */
    MPI_Recv(&value, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        take_one();
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 2; i < size; i++)
            take_one();
    } else {
        int value = rank;
        MPI_Request request;
        MPI_Isend(&value, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD, &request);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
