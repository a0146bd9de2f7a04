/* Every MPI call that mpicheck records sits on a line marked "site"; the test checks that
 * rank 0's trace holds exactly these calls, once each, in order, at these lines. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, value = 0, sum = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv); /* site */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* site */
    MPI_Comm_size(MPI_COMM_WORLD, &size); /* site */
    int peer = rank ^ 1;
    MPI_Irecv(&value, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &req); /* site */
    MPI_Send(&rank, 1, MPI_INT, peer, 0, MPI_COMM_WORLD); /* site */
    MPI_Wait(&req, MPI_STATUS_IGNORE); /* site */
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site */
    MPI_Barrier(MPI_COMM_WORLD); /* site */
    printf("rank %d of %d: neighbour %d, sum %d\n", rank, size, value, sum);
    MPI_Finalize(); /* site */
    return 0;
}
