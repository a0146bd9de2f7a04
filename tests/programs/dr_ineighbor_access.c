/*
 * Accesses to the buffers of pending neighborhood collectives (DR002): on a non-periodic
 * 1-D Cartesian grid of 2 ranks (each has one real neighbour and one MPI_PROC_NULL), a
 * store into the MPI_Ineighbor_alltoall send block for the real neighbour, and a load from
 * the MPI_Ineighbor_allgather receive block from it; on a distributed graph, a store into
 * an MPI_Ineighbor_alltoallv receive block. Data must arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 14, bad = 0, dims = 2, periodic = 0;
    volatile int sink = 0;
    MPI_Comm cart, graph;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periodic, 0, &cart);
    /* Blocks: [0] the neighbour below (rank - 1), [1] the one above (rank + 1). */
    int real = rank == 0 ? 1 : 0;
    int *s = malloc(2 * n * sizeof(int)), *r = malloc(2 * n * sizeof(int));
    for (int i = 0; i < 2 * n; i++) s[i] = rank * 2 * n + i, r[i] = -1;

    MPI_Ineighbor_alltoall(s, n, MPI_INT, r, n, MPI_INT, cart, &req);
    s[real * n + 1] = 0; /* expect: DR002 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    MPI_Ineighbor_allgather(s, n, MPI_INT, r, n, MPI_INT, cart, &req);
    sink = ((volatile int *)r)[real * n + n / 2]; /* expect: DR002 keys */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    /* Rank 1's store into its send block 0 reached rank 0 through the allgather. */
    for (int i = 0; i < n; i++) bad += r[real * n + i] != (rank == 0 && i == 1 ? 0 : (1 - rank) * 2 * n + i);

    int peer[1] = {1 - rank}, counts[1] = {n}, displs[1] = {0};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, peer, MPI_UNWEIGHTED, 1, peer, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &graph);
    MPI_Ineighbor_alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, graph, &req);
    r[7] = 7; /* expect: DR002 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&cart);
    free(s);
    free(r);
    MPI_Finalize();
    return bad != 0 || sink == -2;
}
