/*
 * Accesses to RMA buffers MPI has not finished with (DR002): a load from the result of a
 * pending 1 MiB MPI_Get before the closing fence, a store into the result of a pending
 * MPI_Rget before its wait, stores into the origin of a pending MPI_Fetch_and_op, into the
 * compare buffer of a pending MPI_Compare_and_swap and into its result, before the flush.
 * The get results are found with memory protection keys only (the peer's transport may
 * write them from another process). Data must arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 18, bad = 0;
    volatile int sink = 0;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    int *mem = malloc(n * sizeof(int)), *res = malloc(n * sizeof(int));
    int *small = aligned_alloc(4096, 5 * 4096);
    for (int i = 0; i < n; i++) mem[i] = rank * n + i;
    MPI_Win_create(mem, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    MPI_Get(res, n, MPI_INT, peer, 0, n, MPI_INT, win);
    sink = ((volatile int *)res)[n / 2]; /* expect: DR002 keys */
    MPI_Win_fence(0, win);
    for (int i = 0; i < n; i++) bad += res[i] != peer * n + i;
    MPI_Win_fence(0, win);

    MPI_Win_lock_all(0, win);
    MPI_Rget(res, n, MPI_INT, peer, 0, n, MPI_INT, win, &req);
    ((volatile int *)res)[n / 4] = -1; /* expect: DR002 keys */
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* One int at the start of each page: the origin, compare and result buffers. */
    int *origin = small, *compare = small + 1024, *result = small + 2048;
    *origin = 1;
    MPI_Fetch_and_op(origin, result, MPI_INT, peer, 0, MPI_SUM, win);
    ((volatile int *)origin)[0] = 2; /* expect: DR002 */
    MPI_Win_flush(peer, win);
    *compare = -5;
    MPI_Compare_and_swap(origin, compare, result, MPI_INT, peer, 1, win);
    ((volatile int *)compare)[0] = 1; /* expect: DR002 */
    ((volatile int *)result)[0] = 0; /* expect: DR002 keys */
    MPI_Win_flush(peer, win);
    MPI_Win_unlock_all(win);

    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    MPI_Win_free(&win);
    free(small);
    free(mem);
    free(res);
    MPI_Finalize();
    return bad != 0;
}
