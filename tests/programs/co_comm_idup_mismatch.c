/*
 * Twin of co_comm_idup_ok.c with a collective mismatch on the communicator MPI_Comm_idup
 * made: rank 0 calls MPI_Barrier where rank 1 calls MPI_Allreduce, and the job hangs there.
 * Expected verdict: CO001 at both calls and the deadlock (DL001); before, each rank's idup
 * communicator looked like another one and only a deadlock was reported.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum;
    MPI_Comm dup;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        MPI_Barrier(dup); /* expect: CO001, DL001 */
    else
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup); /* expect: CO001, DL001 */
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
