/*
 * A barrier after MPI_Finalize (AR010), as cleanup code that runs too late does.
 * MPI_Finalized after MPI_Finalize is allowed and not reported.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int flag;

    MPI_Init(&argc, &argv);
    MPI_Finalize();
    MPI_Finalized(&flag);
    MPI_Barrier(MPI_COMM_WORLD); /* expect: AR010 */
    return 0;
}
