/*
 * Twin of rq_message_never_received.c: every rank sends its notices with MPI_Isend, and
 * receives the others' after a barrier, so every message is received before MPI_Finalize
 * even though it waited in MPI's buffers across the barrier.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>

#define DONE_TAG 4242

int main(int argc, char **argv)
{
    int rank, size, done = 1, got[16];
    MPI_Request sends[16];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 16) MPI_Abort(MPI_COMM_WORLD, 1);
    int n = 0;
    for (int i = 0; i < size; i++)
        if (i != rank) MPI_Isend(&done, 1, MPI_INT, i, DONE_TAG, MPI_COMM_WORLD, &sends[n++]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        if (i != rank) MPI_Recv(&got[i], 1, MPI_INT, i, DONE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(n, sends, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
