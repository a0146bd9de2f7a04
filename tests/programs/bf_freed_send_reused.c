/*
 * Twin of bf_freed_send_barrier_ok.c without the barrier: when a rank receives into the
 * buffer of its freed send, nothing shows yet that the peer has received that send
 * (BF001). Only the message coming back into it does.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, peer, buf[4] = {0}, in[4];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Isend(buf, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    MPI_Request_free(&req);
    MPI_Recv(in, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(in, 4, MPI_INT, peer, 1, buf, 4, MPI_INT, peer, 1, /* expect: BF001 */
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
