/*
 * A blocking receive into the buffer of a send that is still pending (BF001 at the
 * MPI_Recv): the outgoing message may be read after it was overwritten. The counts match
 * (4 ints each way), so only the overlap is wrong.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, peer, buf[8] = {0};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Isend(buf, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    MPI_Recv(buf + 2, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: BF001 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
