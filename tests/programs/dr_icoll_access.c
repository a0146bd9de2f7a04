/*
 * Stores into the buffers of pending nonblocking collectives (DR002): into the root's
 * MPI_Ibcast buffer and a non-root's; into an MPI_Iallreduce send buffer; into the root's
 * MPI_Igatherv receive buffer; into an MPI_Ialltoall buffer used in place (read and written
 * by MPI); a load from an MPI_Iallreduce receive buffer (found where memory protection keys
 * let other processes read it while this one may not). Results must stay right.
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = 1 << 14, bad = 0;
    volatile int sink = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int)), *c = malloc(size * n * sizeof(int));

    for (int i = 0; i < n; i++) a[i] = rank == 0 ? i : -1;
    MPI_Ibcast(a, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    a[0] = 0; /* expect: DR002 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 1; i < n; i++) bad += a[i] != i;

    for (int i = 0; i < n; i++) a[i] = rank + i;
    MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    a[1] = 7; /* expect: DR002 */
    sink += ((volatile int *)b)[n / 2]; /* expect: DR002 keys */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 2; i < n; i++) bad += b[i] != 2 * i + 1;

    int counts[2] = {n, n}, displs[2] = {0, n};
    for (int i = 0; i < n; i++) a[i] = rank;
    MPI_Igatherv(a, n, MPI_INT, c, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &req);
    if (rank == 0) c[0] = 9; /* expect: DR002 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        for (int i = 1; i < 2 * n; i++) bad += c[i] != i / n;

    for (int i = 0; i < 2 * n; i++) c[i] = rank * 2 * n + i;
    MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c, n, MPI_INT, MPI_COMM_WORLD, &req);
    c[n / 2] = 3; /* expect: DR002 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return bad != 0;
}
