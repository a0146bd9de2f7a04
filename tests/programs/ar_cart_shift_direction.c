/*
 * A shift along dimension 2 of a 2-d grid, directions counted from 1 (AR012). The library
 * rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int dims[2] = {0, 0}, periods[2] = {0, 0}, size, left, right;
    MPI_Comm grid;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_shift(grid, 2, 1, &left, &right); /* expect: AR012 */
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
