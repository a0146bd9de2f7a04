/*
 * One store into the buffers of three pending MPI_Irecv calls (DR002), a new buffer for
 * each message size, as NetPIPE's -a mode does: one finding of that instruction, which
 * counts the other buffers, rather than one per buffer. The data must still arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    for (int size = 1; size <= 3; size++) {
        int n = size << 16;
        int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
        MPI_Request req;
        for (int i = 0; i < n; i++) out[i] = rank * n + i;
        MPI_Irecv(in, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
        if (rank == 0)
            ((volatile int *)in)[0] = 7; /* expect: DR002 */
        MPI_Send(out, n, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) bad += in[i] != peer * n + i;
        free(in);
        free(out);
    }
    if (bad) printf("rank %d: %d wrong elements\n", rank, bad);
    MPI_Finalize();
    return bad != 0;
}
