/*
 * Places in grids used right: nothing to report. Shifts along every dimension of a 2-d
 * grid, with negative displacements; ranks of coordinates that wrap on a periodic
 * dimension; ranks in a sub-grid and in a duplicate of it; node communicators split by
 * type, and by MPI_UNDEFINED.
 */
/* mpicheck: ranks=4 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int size, me, d, src, dst, r, dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2];
    int remain[2] = {0, 1}, sub_coords[1];
    MPI_Comm grid, row, copy, node, none;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    for (d = 0; d < 2; d++)
        MPI_Cart_shift(grid, d, -1, &src, &dst);
    MPI_Comm_rank(grid, &me);
    MPI_Cart_coords(grid, me, 2, coords);
    coords[0] += dims[0]; /* periodic: wraps */
    MPI_Cart_rank(grid, coords, &r);
    coords[0] = -1;
    MPI_Cart_rank(grid, coords, &r);
    MPI_Cart_sub(grid, remain, &row);
    MPI_Comm_dup(row, &copy);
    sub_coords[0] = dims[1] - 1;
    MPI_Cart_rank(copy, sub_coords, &r);
    MPI_Cart_shift(copy, 0, 1, &src, &dst);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, me, MPI_INFO_NULL, &none);
    MPI_Comm_free(&node);
    MPI_Comm_free(&copy);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
