/*
 * ScaLAPACK's BLACS (under Quantum ESPRESSO) sends from a queue of buffers with
 * MPI_Isend and, when it needs a buffer, asks MPI_Testall whether an older one is free
 * again, taking another one if not: a poll, not a wait. Both ranks send before they
 * receive, without waiting for each other: no potential deadlock.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, peer, flag, buf[2][4] = {{0}}, in[4];
    MPI_Request req[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Isend(buf[0], 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Testall(1, &req[0], &flag, MPI_STATUSES_IGNORE); /* is buf[0] free again? */
    MPI_Isend(buf[flag ? 0 : 1], 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Recv(in, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(in, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
