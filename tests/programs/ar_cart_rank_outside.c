/*
 * The rank of the right neighbour of the last process of a non-periodic line, computed
 * without clipping: coordinate `size` is outside the grid (AR012). The library rejects it
 * and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int size, me, coords[1], right, dims[1], periods[1] = {0};
    MPI_Comm line;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Comm_rank(line, &me);
    MPI_Cart_coords(line, me, 1, coords);
    coords[0] = size; /* one past the end, on every process */
    MPI_Cart_rank(line, coords, &right); /* expect: AR012 */
    MPI_Comm_free(&line);
    MPI_Finalize();
    return 0;
}
