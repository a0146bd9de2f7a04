/*
 * Arguments the standard lets be anything, and topologies used right: nothing to report.
 * Root-only arguments hold garbage on the other ranks (MPI_Gather's receive count and
 * type, MPI_Scatterv's send counts), MPI_IN_PLACE at the root of MPI_Scatter and
 * MPI_Reduce, MPI_UNDEFINED as a color, a cartesian query on a duplicate of the grid, a
 * neighborhood collective on the grid.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size, x, all[3] = {1, 2, 3}, counts[3] = {1, 1, 1}, displs[3] = {0, 1, 2};
    int dims[1] = {0}, periods[1] = {1}, coords[1], left, right, got[2];
    MPI_Comm sub, cart, dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    x = rank;
    MPI_Gather(&x, 1, MPI_INT, all, rank == 0 ? 1 : -1, rank == 0 ? MPI_INT : MPI_DATATYPE_NULL,
               0, MPI_COMM_WORLD);
    MPI_Scatterv(all, rank == 0 ? counts : NULL, displs, MPI_INT, &x, 1, MPI_INT, 0,
                 MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Scatter(all, 1, MPI_INT, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    else
        MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, &x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Reduce(MPI_IN_PLACE, all, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    else
        MPI_Reduce(all, NULL, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, -rank, &sub);
    if (sub != MPI_COMM_NULL)
        MPI_Comm_free(&sub);
    MPI_Dims_create(size, 1, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_dup(cart, &dup);
    MPI_Cart_coords(dup, rank, 1, coords);
    MPI_Cart_shift(dup, 0, 1, &left, &right);
    MPI_Neighbor_allgather(&x, 1, MPI_INT, got, 1, MPI_INT, cart);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
