/*
 * AR012: negative ndims in MPI_Cart_create (generated: do not edit).
 * Written by crates/mpicheck-programs-tests/src/generated.rs; regenerate with
 * MPICHECK_BLESS=1 cargo nextest run -p mpicheck-programs-tests --test generated.
 */
/* mpicheck: ranks=1 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size, sbuf[16] = {0}, rbuf[16] = {0}, counts[16], displs[16];
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < 16; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    MPI_Comm cart;
    int dims[1] = {1}, periods[1] = {0};
    MPI_Cart_create(comm, -1, dims, periods, 0, &cart); /* expect: AR012 */
    if (cart != MPI_COMM_NULL)
        MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
