/*
 * Neighborhood collectives on communicators derived from a cartesian grid: a duplicate
 * keeps the grid, and MPI_Cart_sub keeps the dimensions it is asked to, so their neighbors
 * are known. On the duplicate of a periodic 2 x 2 grid rank 3 receives its neighbors' ints
 * as floats; on the row subgrids (periodic rings of 2) rank 1 expects 2 ints per neighbor
 * where 1 is sent. Expected verdict: TY001 at each call. Twin: ty_neighbor_dup_sub_ok.c.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, dims[2] = {2, 2}, periods[2] = {1, 1}, remain[2] = {0, 1};
    int a[8] = {0}, b[16] = {0};
    MPI_Comm cart, dup, row;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_dup(cart, &dup);
    MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, rank == 3 ? MPI_FLOAT : MPI_INT, dup); /* expect: TY001 */
    MPI_Cart_sub(cart, remain, &row);
    MPI_Neighbor_alltoall(a, 1, MPI_INT, b, rank == 1 ? 2 : 1, MPI_INT, row); /* expect: TY001 */
    MPI_Comm_free(&row);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
