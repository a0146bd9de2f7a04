/*
 * AR014: zero stride in MPI_Group_range_excl (generated: do not edit).
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
    MPI_Group world, sub;
    int ranges[1][3] = {{0, 0, 0}};
    MPI_Comm_group(comm, &world);
    MPI_Group_range_excl(world, 1, ranges, &sub); /* expect: AR014 */
    MPI_Group_free(&sub);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
