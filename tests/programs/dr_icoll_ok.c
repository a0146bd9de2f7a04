/*
 * Correct uses of buffers around nonblocking collectives under --check-buffers: reads of
 * send buffers and of a root's own input block used in place, arguments that only count at
 * the root (a non-root's MPI_Ireduce receive buffer, MPI_Iscatter send buffer), stores into
 * the holes between the blocks of a v-variant's receive buffer, input beyond the result of
 * an in-place MPI_Ireduce_scatter(_block), and stores after the wait; also MPI_Ialltoallw
 * (byte displacements), MPI_Iscatterv, MPI_Iscan and MPI_Iexscan. Results must be right.
 */
/* mpicheck: ranks=2 check-buffers */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = 1 << 14, bad = 0;
    long sum = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
    int *c = malloc((size * n + 64) * sizeof(int));

    /* The root reads what it broadcasts; the others store after the wait. */
    for (int i = 0; i < n; i++) a[i] = rank == 0 ? i : -1;
    MPI_Ibcast(a, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    if (rank == 0)
        for (int i = 0; i < n; i += 64) sum += a[i];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += a[i] != i;
    a[0] = 5;

    /* A non-root's receive buffer of MPI_Ireduce is not used by MPI. */
    for (int i = 0; i < n; i++) a[i] = i;
    MPI_Ireduce(a, b, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req);
    if (rank != 0)
        for (int i = 0; i < n; i++) b[i] = -i;
    for (int i = 0; i < n; i += 64) sum += a[i];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        for (int i = 0; i < n; i++) bad += b[i] != size * i;

    /* In place at the root: its own block is input, which it may read. */
    for (int i = 0; i < n; i++) c[rank * n + i] = rank;
    if (rank == 0)
        MPI_Igather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    else
        MPI_Igather(c + rank * n, n, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &req);
    for (int i = 0; i < n; i += 64) sum += c[rank * n + i];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        for (int i = 0; i < size * n; i++) bad += c[i] != i / n;

    /* A non-root's send buffer of MPI_Iscatter is not used by MPI. */
    for (int i = 0; i < size * n; i++) c[i] = i;
    MPI_Iscatter(c, n, MPI_INT, b, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    if (rank != 0) c[0] = -1;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += b[i] != rank * n + i;

    /* Blocks with holes between them: the holes are the program's. */
    int counts[2] = {n / 2, n / 2}, displs[2] = {8, n / 2 + 40};
    for (int i = 0; i < n / 2; i++) a[i] = rank;
    MPI_Iallgatherv(a, n / 2, MPI_INT, c, counts, displs, MPI_INT, MPI_COMM_WORLD, &req);
    for (int i = 0; i < 8; i++) c[i] = -2;
    for (int i = 8 + n / 2; i < n / 2 + 40; i++) c[i] = -2;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n / 2; i++) bad += c[displs[r] + i] != r;
    for (int i = 0; i < 8; i++) bad += c[i] != -2;

    /* In place: the result lands in the first n / size elements, the rest is input. */
    for (int i = 0; i < n; i++) b[i] = i;
    MPI_Ireduce_scatter_block(MPI_IN_PLACE, b, n / size, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    sum += b[n - 1];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n / size; i++) bad += b[i] != size * (rank * (n / size) + i);

    /* Send blocks in reverse order, receive in order. */
    int sc[2] = {n / 2, n / 2}, sd[2] = {n / 2, 0}, rc[2] = {n / 2, n / 2}, rd[2] = {0, n / 2};
    for (int i = 0; i < n; i++) a[i] = rank * n + i;
    MPI_Ialltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD, &req);
    sum += a[3];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    b[0] += 0;

    /* MPI_Ialltoallw: byte displacements, a type per peer; the gap between the receive
     * blocks is the program's. */
    int wc[2] = {n / 4, n / 4}, wsd[2] = {0, (n / 4) * (int)sizeof(int)};
    int wrd[2] = {0, (n / 4 + 16) * (int)sizeof(int)};
    MPI_Datatype wt[2] = {MPI_INT, MPI_INT};
    for (int i = 0; i < n / 2; i++) a[i] = rank * n + i;
    MPI_Ialltoallw(a, wc, wsd, wt, c, wc, wrd, wt, MPI_COMM_WORLD, &req);
    for (int i = n / 4; i < n / 4 + 16; i++) c[i] = -3;
    sum += a[5];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n / 4; i++) bad += c[wrd[r] / (int)sizeof(int) + i] != r * n + rank * (n / 4) + i;
    for (int i = n / 4; i < n / 4 + 16; i++) bad += c[i] != -3;

    /* MPI_Iscatterv from the root's blocks in reverse order. */
    int vc[2] = {n / 2, n / 2}, vd[2] = {n / 2, 0};
    for (int i = 0; i < n; i++) a[i] = i;
    MPI_Iscatterv(a, vc, vd, MPI_INT, b, n / 2, MPI_INT, 0, MPI_COMM_WORLD, &req);
    if (rank == 0) sum += a[n - 1];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n / 2; i++) bad += b[i] != vd[rank] + i;

    /* MPI_Iscan and MPI_Iexscan; MPI_Ireduce_scatter in place. */
    for (int i = 0; i < n; i++) a[i] = 1;
    MPI_Iscan(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    sum += a[0];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += b[i] != rank + 1;
    MPI_Iexscan(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank > 0)
        for (int i = 0; i < n; i++) bad += b[i] != rank;
    int rs[2] = {n / 4, n - n / 4};
    for (int i = 0; i < n; i++) b[i] = i;
    MPI_Ireduce_scatter(MPI_IN_PLACE, b, rs, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    sum += b[n - 1]; /* input beyond this rank's result */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < rs[rank]; i++) bad += b[i] != size * ((rank ? rs[0] : 0) + i);

    printf("rank %d: sum %ld\n", rank, sum);
    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return bad != 0;
}
