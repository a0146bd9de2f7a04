/*
 * Twin of bf_aliased_buffers.c: MPI_Sendrecv with adjacent, disjoint halves of one
 * array, MPI_Sendrecv_replace, and MPI_Allreduce with MPI_IN_PLACE.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, peer, a[16] = {0}, sum[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Sendrecv(a, 8, MPI_INT, peer, 0, a + 8, 8, MPI_INT, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv_replace(a, 8, MPI_INT, peer, 1, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, sum, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
