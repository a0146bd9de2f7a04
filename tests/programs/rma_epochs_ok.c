/*
 * Correct one-sided communication in every kind of epoch (twin of the rma_* and dr_*
 * programs): fence epochs where each origin writes its own element of rank 0 and all
 * ranks add into one shared counter with MPI_Accumulate (MPI_SUM, same type: allowed to
 * overlap), MPI_Win_allocate with exclusive lock epochs and a flush, a lock_all epoch
 * with request-based MPI_Rget, and a post/start/complete/wait (PSCW) epoch.
 * Expected verdict: none.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i, one = 1, got = 0;
    int slots[8] = {0};
    int *heap;
    MPI_Win win, heap_win;
    MPI_Group world_group, peers;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* Fence: each rank writes its own slot of rank 0, and everybody adds to slot 7. */
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 7, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    /* Next epoch: read what the last one wrote. */
    MPI_Get(&got, 1, MPI_INT, 0, (rank + 1) % size, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    /* PSCW: rank 0 exposes its window to the others, which each write their slot. */
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    if (rank == 0) {
        int others[2] = {1, 2};
        MPI_Group_incl(world_group, size - 1, others, &peers);
        MPI_Win_post(peers, 0, win);
        MPI_Win_wait(win);
    } else {
        int zero = 0;
        MPI_Group_incl(world_group, 1, &zero, &peers);
        MPI_Win_start(peers, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, 3 + rank, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    MPI_Group_free(&peers);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);

    /* Passive target on allocated memory. */
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &heap,
                     &heap_win);
    for (i = 0; i < 4; i++)
        heap[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, heap_win);
    MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 1, 1, MPI_INT, heap_win);
    MPI_Win_flush((rank + 1) % size, heap_win);
    MPI_Get(&got, 1, MPI_INT, (rank + 1) % size, 1, 1, MPI_INT, heap_win);
    MPI_Win_unlock((rank + 1) % size, heap_win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, heap_win);
    MPI_Rget(&got, 1, MPI_INT, 0, 1, 1, MPI_INT, heap_win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(heap_win);
    MPI_Win_free(&heap_win);

    MPI_Finalize();
    return 0;
}
