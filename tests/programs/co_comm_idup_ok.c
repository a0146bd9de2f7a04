/*
 * A communicator made by MPI_Comm_idup is the same
 * communicator on every rank once the request completes: point-to-point and collectives on it
 * match. mpicheck knew no group for it and saw one communicator per rank, so the exchange
 * below was a false potential deadlock (DL002). Nothing to report.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum, x = 0;
    MPI_Comm dup, dup2;
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &reqs[0]);
    MPI_Comm_idup(MPI_COMM_WORLD, &dup2, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Comm_rank(dup, &rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    if (rank == 0) MPI_Send(&rank, 1, MPI_INT, 1, 0, dup);
    if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
    MPI_Barrier(dup2);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
