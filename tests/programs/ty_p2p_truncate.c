/*
 * A receive too small for its message: rank 0 sends 8 ints, rank 1 receives at most 4.
 * Both MPIs abort the job with a truncation error inside MPI_Recv; the trace of the
 * receive survives. Expected verdict: TY003 at the receive (and the send).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a[8] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(a, 8, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect: TY003 */
    else
        MPI_Recv(a, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TY003 */
    MPI_Finalize();
    return 0;
}
