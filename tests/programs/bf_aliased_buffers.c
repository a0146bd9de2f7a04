/*
 * Send and receive buffers of one call that overlap (BF002): an MPI_Sendrecv whose
 * receive buffer starts inside its send buffer, and an MPI_Allreduce with the same
 * buffer twice instead of MPI_IN_PLACE (MPICH rejects it and aborts; the findings
 * must still be reported).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, peer, a[12] = {0}, sum[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Sendrecv(a, 8, MPI_INT, peer, 0, a + 4, 8, MPI_INT, peer, 0, MPI_COMM_WORLD, /* expect: BF002 */
                 MPI_STATUS_IGNORE);
    MPI_Allreduce(sum, sum, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: BF002 */
    MPI_Finalize();
    return 0;
}
