/*
 * Correct uses of RMA result buffers under --check-buffers: 1 MiB gets from windows made by
 * MPI_Win_create, MPI_Win_allocate and MPI_Win_allocate_shared (the MPIs' shared-memory and
 * single-copy paths write the results while they are watched), read after the fence, the
 * flush or the request's wait; neighbours of a pending result on its first and last page
 * written meanwhile; the origin of a pending MPI_Fetch_and_op and the compare buffer of a
 * pending MPI_Compare_and_swap read (allowed), their results read after the flush, and the
 * ignored origin of an MPI_NO_OP fetch. Data must arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check_gets(MPI_Win win, int peer, int n, int *block)
{
    int bad = 0;
    /* The result starts 64 bytes into a page and ends 64 bytes before one. */
    int *res = block + 16;
    volatile int *before = block, *after = res + n;
    MPI_Request req;

    MPI_Win_fence(0, win);
    MPI_Get(res, n, MPI_INT, peer, 0, n, MPI_INT, win);
    before[0] = 1;
    after[0] = 2;
    MPI_Win_fence(0, win);
    for (int i = 0; i < n; i++) bad += res[i] != peer * n + i;
    MPI_Win_fence(0, win);

    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
    MPI_Get(res, n, MPI_INT, peer, 0, n, MPI_INT, win);
    before[1] = 1;
    MPI_Win_flush(peer, win);
    for (int i = 0; i < n; i++) bad += res[i] != peer * n + i;
    res[0] = -1;
    MPI_Rget(res, n, MPI_INT, peer, 0, n, MPI_INT, win, &req);
    after[1] = 3;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += res[i] != peer * n + i;

    int *small = block + 16 + n + 1024;
    int *origin = small, *compare = small + 1024, *result = small + 2048;
    long sum = 0;
    *origin = 1;
    MPI_Fetch_and_op(origin, result, MPI_INT, peer, 0, MPI_NO_OP, win);
    *origin = 5; /* MPI_NO_OP: the origin is not used */
    MPI_Win_flush(peer, win);
    bad += *result != peer * n;
    MPI_Fetch_and_op(origin, result, MPI_INT, peer, 2, MPI_REPLACE, win);
    sum += *origin;
    MPI_Win_flush(peer, win);
    bad += *result != peer * n + 2;
    *compare = -7;
    MPI_Compare_and_swap(origin, compare, result, MPI_INT, peer, 3, win);
    sum += *compare;
    MPI_Win_flush(peer, win);
    bad += *result != peer * n + 3;
    MPI_Win_unlock(peer, win);
    return bad + (sum == 42);
}

int main(int argc, char **argv)
{
    int rank, n = 1 << 18, bad = 0;
    MPI_Win win;
    int *mem;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    int *block = aligned_alloc(4096, n * sizeof(int) + 8 * 4096);

    mem = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) mem[i] = rank * n + i;
    MPI_Win_create(mem, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    bad += check_gets(win, peer, n, block);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(mem);

    MPI_Win_allocate(n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < n; i++) mem[i] = rank * n + i;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    bad += check_gets(win, peer, n, block);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);

    MPI_Win_allocate_shared(n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < n; i++) mem[i] = rank * n + i;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    bad += check_gets(win, peer, n, block);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);

    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    free(block);
    MPI_Finalize();
    return bad != 0;
}
