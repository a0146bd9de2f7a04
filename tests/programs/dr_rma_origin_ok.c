/*
 * Correct uses of RMA origin buffers under --check-buffers: reads of a pending put's origin
 * buffer, stores after the closing fence, after a flush and after the request's wait, a
 * get's result read after the fence (never protected), puts to MPI_PROC_NULL, the ignored
 * origin buffer of an MPI_NO_OP get-accumulate, and an origin
 * buffer on the same page as the window's memory, which the other rank writes meanwhile
 * (never protected). Data must arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 14, bad = 0;
    long sum = 0;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    int *mem = aligned_alloc(4096, n * sizeof(int)), *org = aligned_alloc(4096, n * sizeof(int));
    for (int i = 0; i < n; i++) mem[i] = 0;
    MPI_Win_create(mem, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* Fence epoch: read the origin while pending, store after the fence. */
    for (int i = 0; i < n; i++) org[i] = rank * n + i;
    MPI_Win_fence(0, win);
    MPI_Put(org, n, MPI_INT, peer, 0, n, MPI_INT, win);
    MPI_Put(org, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win);
    for (int i = 0; i < n; i += 64) sum += org[i];
    MPI_Win_fence(0, win);
    org[0] = -1;
    for (int i = 0; i < n; i++) bad += mem[i] != peer * n + i;

    /* A get's result is read after the fence. */
    MPI_Win_fence(0, win);
    MPI_Get(org, n, MPI_INT, peer, 0, n, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < n; i++) bad += org[i] != rank * n + i;

    /* MPI_NO_OP: a get-accumulate ignores its origin buffer, which stays the program's. */
    int got = 0;
    MPI_Win_fence(0, win);
    MPI_Get_accumulate(org + 8, 1, MPI_INT, &got, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_NO_OP, win);
    org[8] = -4;
    MPI_Win_fence(0, win);
    bad += got != rank * n;

    /* Lock epochs: a flush completes the put at the origin; a request its wait. */
    MPI_Win_lock_all(0, win);
    MPI_Put(org, n, MPI_INT, peer, 0, n, MPI_INT, win);
    MPI_Win_flush(peer, win);
    org[1] = -1;
    MPI_Rput(org, n / 2, MPI_INT, peer, 0, n / 2, MPI_INT, win, &req);
    sum += org[2];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    org[2] = -1;
    MPI_Rput(org + 16, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &req);
    org[16] = -1; /* a request to MPI_PROC_NULL does not use its buffer */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* An origin buffer next to the window's memory on the same page, while the peer puts
     * into this window: never protected. */
    int *both = aligned_alloc(4096, 4096);
    MPI_Win w2;
    MPI_Win_create(both, 512 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
    for (int i = 512; i < 1024; i++) both[i] = rank;
    MPI_Win_lock_all(0, w2);
    MPI_Put(both + 512, 512, MPI_INT, peer, 0, 512, MPI_INT, w2);
    both[1000] = rank; /* not protected: shares its page with the window */
    MPI_Win_unlock_all(w2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w2);
    for (int i = 0; i < 512; i++) bad += both[i] != peer;
    MPI_Win_unlock(rank, w2);
    MPI_Win_free(&w2);

    printf("rank %d: sum %ld\n", rank, sum);
    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    MPI_Win_free(&win);
    free(both);
    free(mem);
    free(org);
    MPI_Finalize();
    return bad != 0;
}
