/*
 * AR011: negative color in MPI_Comm_split (generated: do not edit).
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
    MPI_Comm sub;
    MPI_Comm_split(comm, -5, 0, &sub); /* expect: AR011 */
    if (sub != MPI_COMM_NULL)
        MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
