/*
 * MPI_Cart_coords given the communicator the grid was made from instead of the grid
 * (AR013). The library rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, dims[1] = {2}, periods[1] = {1}, coords[1];
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Cart_coords(MPI_COMM_WORLD, rank, 1, coords); /* expect: AR013 */
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
