/*
 * A negative count computed for rank 0's copy of its own block (AR003). MPI rejects it and
 * aborts the job inside rank 0's MPI_Send to itself while rank 1 already waits in
 * MPI_Barrier. The send never returns but did not block: no deadlock and no collective
 * mismatch besides the AR003 (Open MPI ends the process with _exit, MPICH asks its process
 * manager to abort the job; c/abort.c notes both in the trace).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, block[4] = {1, 2, 3, 4}, copy[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int nlocal = rank - 1; /* -1 on rank 0 */
    if (rank == 0) {
        MPI_Send(block, nlocal, MPI_INT, 0, 0, MPI_COMM_WORLD); /* expect: AR003 */
        MPI_Recv(copy, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
