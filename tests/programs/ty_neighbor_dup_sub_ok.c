/*
 * Twin of ty_neighbor_dup_sub_mismatch.c: the same neighborhood collectives on the
 * duplicate of a periodic 2 x 2 grid and on its row subgrids, every rank sending and
 * receiving the same signature. Nothing to report.
 */
/* mpicheck: ranks=4 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int dims[2] = {2, 2}, periods[2] = {1, 1}, remain[2] = {0, 1};
    int a[8] = {0}, b[16] = {0};
    MPI_Comm cart, dup, row;
    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_dup(cart, &dup);
    MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, dup);
    MPI_Cart_sub(cart, remain, &row);
    MPI_Neighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, row);
    MPI_Comm_free(&row);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
