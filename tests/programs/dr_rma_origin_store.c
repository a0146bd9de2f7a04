/*
 * Stores into the origin buffer of pending RMA operations (DR002): after MPI_Put in a fence
 * epoch, after MPI_Accumulate in a lock epoch, after MPI_Rput before its wait. MPI may read
 * the origin buffer until the operation completes at the origin (the closing fence, unlock
 * or flush, or the request). The data must still arrive as MPI read it.
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 14, bad = 0;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Page-aligned, whole pages: the origin buffers share no page with the window. */
    int *mem = aligned_alloc(4096, n * sizeof(int)), *org = aligned_alloc(4096, n * sizeof(int));
    for (int i = 0; i < n; i++) mem[i] = 0;
    MPI_Win_create(mem, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    for (int i = 0; i < n; i++) org[i] = i;
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(org, n, MPI_INT, 1, 0, n, MPI_INT, win);
        org[0] = 5; /* expect: DR002 */
    }
    MPI_Win_fence(0, win);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Accumulate(org, n, MPI_INT, 1, 0, n, MPI_INT, MPI_SUM, win);
        org[1] = 6; /* expect: DR002 */
        MPI_Win_unlock(1, win);

        MPI_Win_lock_all(0, win);
        MPI_Rput(org, n, MPI_INT, 1, 0, n, MPI_INT, win, &req);
        org[2] = 7; /* expect: DR002 */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        for (int i = 3; i < n; i++) bad += mem[i] != i;
        MPI_Win_unlock(1, win);
    }
    if (bad) printf("rank %d: %d wrong elements\n", rank, bad);
    MPI_Win_free(&win);
    free(mem);
    free(org);
    MPI_Finalize();
    return bad != 0;
}
