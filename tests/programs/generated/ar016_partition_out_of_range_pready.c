/*
 * AR016: partition out of range in MPI_Pready (generated: do not edit).
 * Written by crates/mpicheck-programs-tests/src/generated.rs; regenerate with
 * MPICHECK_BLESS=1 cargo nextest run -p mpicheck-programs-tests --test generated.
 */
/* mpicheck: ranks=2 mpi=mpich */
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
    MPI_Request req;
    if (rank == 1) {
        MPI_Precv_init(rbuf, 4, 1, MPI_INT, 0, 0, comm, MPI_INFO_NULL, &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
    } else {
        MPI_Psend_init(sbuf, 4, 1, MPI_INT, 1, 0, comm, MPI_INFO_NULL, &req);
        MPI_Start(&req);
        MPI_Pready(4, req); /* expect: AR016 */
        MPI_Pready_range(0, 3, req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
    }
    MPI_Finalize();
    return 0;
}
