/*
 * A deadlock with a polling server loop: every rank waits for a request with MPI_Iprobe in a
 * loop before answering, so nobody ever sends. Reported at the polling calls.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, value;
    MPI_Status status;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (!flag)
        MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &status); /* expect: DL001 */
    MPI_Recv(&value, 1, MPI_INT, status.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
