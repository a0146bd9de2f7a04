/*
 * Persistent sends and receives (MPI_Startall) of matching types, restarted: nothing to
 * report.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out[4] = {1, 2, 3, 4}, in[4];
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    MPI_Send_init(out, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(in, 4, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[1]);
    for (int round = 0; round < 3; round++) {
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    MPI_Finalize();
    return 0;
}
