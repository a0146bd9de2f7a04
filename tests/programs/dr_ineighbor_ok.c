/*
 * Correct uses of the buffers of pending neighborhood collectives under --check-buffers: on
 * a non-periodic 1-D Cartesian grid of 2 ranks, the blocks of the MPI_PROC_NULL neighbour
 * (MPI does not touch them) are read and written while the operations are pending, send
 * blocks are read, the holes between MPI_Ineighbor_alltoallw and _allgatherv blocks are
 * written, and everything else after the wait. Data must arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 14, bad = 0, dims = 2, periodic = 0;
    long sum = 0;
    MPI_Comm cart;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periodic, 0, &cart);
    int real = rank == 0 ? 1 : 0, none = 1 - real;
    int *s = malloc(3 * n * sizeof(int)), *r = malloc(3 * n * sizeof(int));
    for (int i = 0; i < 3 * n; i++) s[i] = rank * 3 * n + i, r[i] = -1;

    MPI_Ineighbor_alltoall(s, n, MPI_INT, r, n, MPI_INT, cart, &req);
    s[none * n + 3] = 1;
    r[none * n + 4] = 2;
    sum += r[none * n + 5] + s[real * n + 6];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += r[real * n + i] != (1 - rank) * 3 * n + none * n + i;
    s[none * n + 3] = rank * 3 * n + none * n + 3;

    /* Blocks n apart with a hole of n elements between them: [0, n) and [2n, 3n). */
    int counts[2] = {n, n}, displs[2] = {0, 2 * n};
    MPI_Ineighbor_allgatherv(s, n, MPI_INT, r, counts, displs, MPI_INT, cart, &req);
    r[n + 5] = 3; /* the hole */
    r[(none ? 2 * n : 0) + 9] = 4; /* the MPI_PROC_NULL block */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += r[(real ? 2 * n : 0) + i] != (1 - rank) * 3 * n + i;

    MPI_Aint bdispls[2] = {0, 2 * n * (MPI_Aint)sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Ineighbor_alltoallw(s, counts, bdispls, types, r, counts, bdispls, types, cart, &req);
    r[n + 6] = 5;
    s[n + 7] = 6;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += r[(real ? 2 * n : 0) + i] != (1 - rank) * 3 * n + (none ? 2 * n : 0) + i;
    r[real * n] = 0;

    printf("rank %d: sum %ld\n", rank, sum);
    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    MPI_Comm_free(&cart);
    free(s);
    free(r);
    MPI_Finalize();
    return bad != 0;
}
