/*
 * MPI_OP_NULL as the operation of MPI_Reduce (AR004). The library rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int x = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Reduce(&x, &sum, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD); /* expect: AR004 */
    MPI_Finalize();
    return 0;
}
