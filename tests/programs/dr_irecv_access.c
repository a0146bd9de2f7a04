/*
 * Loads and stores of the buffer of a pending MPI_Irecv (DR002): rank 0 reads the middle of
 * its receive buffer, rank 1 writes its first element, both before the wait. The 1 MiB
 * messages take the large-message paths of both MPIs (single copy between processes)
 * while the buffers are watched; the data must still arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 18, bad = 0;
    volatile int sink = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) out[i] = rank * n + i;
    MPI_Irecv(in, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    if (rank == 0)
        sink = ((volatile int *)in)[n / 2]; /* expect: DR002 */
    else
        ((volatile int *)in)[0] = 7; /* expect: DR002 */
    MPI_Send(out, n, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += in[i] != peer * n + i;
    if (bad) printf("rank %d: %d wrong elements\n", rank, bad);
    free(in);
    free(out);
    MPI_Finalize();
    return bad != 0 || sink < 0;
}
