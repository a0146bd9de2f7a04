/*
 * MPI_DATATYPE_NULL as the receive type of MPI_Scatter, significant on every rank
 * (AR004). The library rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int all[2] = {1, 2}, mine = 0;
    MPI_Init(&argc, &argv);
    MPI_Scatter(all, 1, MPI_INT, &mine, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD); /* expect: AR004 */
    MPI_Finalize();
    return 0;
}
