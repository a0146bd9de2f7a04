/*
 * A negative send count in MPI_Gather, significant on every rank (AR003). The library
 * rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1, all[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = rank == 0 ? -1 : 1;
    MPI_Gather(&x, n, MPI_INT, all, 1, MPI_INT, 1, MPI_COMM_WORLD); /* expect: AR003 */
    MPI_Finalize();
    return 0;
}
