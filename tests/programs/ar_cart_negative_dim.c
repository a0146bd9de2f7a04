/*
 * A cartesian grid with a negative dimension, "choose for me" as in MPI_Dims_create
 * (AR012). The library rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int dims[2] = {2, -1}, periods[2] = {0, 0};
    MPI_Comm cart; /* never made: the library aborts */
    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart); /* expect: AR012 */
    MPI_Finalize();
    return 0;
}
