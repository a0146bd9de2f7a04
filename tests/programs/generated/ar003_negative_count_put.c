/*
 * AR003: negative count in MPI_Put (generated: do not edit).
 * Written by crates/mpicheck-programs-tests/src/generated.rs; regenerate with
 * MPICHECK_BLESS=1 cargo nextest run -p mpicheck-programs-tests --test generated.
 */
/* mpicheck: ranks=2 */
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
    MPI_Win win;
    MPI_Win_create(rbuf, sizeof rbuf, sizeof(int), MPI_INFO_NULL, comm, &win);
    MPI_Win_fence(0, win);
    MPI_Put(sbuf, -1, MPI_INT, rank, 0, 1, MPI_INT, win); /* expect: AR003 */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
