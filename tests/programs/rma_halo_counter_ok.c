/*
 * A realistic one-sided program, correct: a 1-D heat stencil whose ranks put their edge
 * cells into their neighbours' ghost cells in fence epochs (MPI_Win_allocate, disp_unit
 * sizeof(double), MPI_PROC_NULL at the ends), a work counter shared through
 * MPI_Fetch_and_op under MPI_Win_lock_all with flushes, and a spin lock taken with
 * MPI_Compare_and_swap under exclusive locks. Expected verdict: none.
 */
/* mpicheck: ranks=4 */
/* expect: none */
#include <mpi.h>

#define N 16

int main(int argc, char **argv)
{
    int rank, size, step, i;
    double *u, next[N + 2];
    long *counter, one = 1, ticket = 0;
    int *mutex, zero = 0, mine = 1, seen = 1;
    MPI_Win halo_win, counter_win, mutex_win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    /* u[0] and u[N + 1] are ghost cells the neighbours write. */
    MPI_Win_allocate((N + 2) * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &u, &halo_win);
    for (i = 0; i < N + 2; i++)
        u[i] = rank;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, halo_win);
    for (step = 0; step < 5; step++) {
        MPI_Put(&u[1], 1, MPI_DOUBLE, left, N + 1, 1, MPI_DOUBLE, halo_win);
        MPI_Put(&u[N], 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, halo_win);
        MPI_Win_fence(0, halo_win);
        for (i = 1; i <= N; i++)
            next[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
        for (i = 1; i <= N; i++)
            u[i] = next[i];
        MPI_Win_fence(0, halo_win);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, halo_win);
    MPI_Win_free(&halo_win);

    /* A shared work counter on rank 0. */
    MPI_Win_allocate(rank == 0 ? sizeof(long) : 0, sizeof(long), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &counter, &counter_win);
    if (rank == 0)
        *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, counter_win);
    for (i = 0; i < 3; i++) {
        MPI_Fetch_and_op(&one, &ticket, MPI_LONG, 0, 0, MPI_SUM, counter_win);
        MPI_Win_flush(0, counter_win);
    }
    MPI_Win_unlock_all(counter_win);
    MPI_Win_free(&counter_win);

    /* A spin lock on rank 0: 0 is free, 1 is taken. */
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mutex,
                     &mutex_win);
    *mutex = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    while (seen != 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, mutex_win);
        MPI_Compare_and_swap(&mine, &zero, &seen, MPI_INT, 0, 0, mutex_win);
        MPI_Win_unlock(0, mutex_win);
    }
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, mutex_win);
    MPI_Put(&zero, 1, MPI_INT, 0, 0, 1, MPI_INT, mutex_win);
    MPI_Win_unlock(0, mutex_win);
    MPI_Win_free(&mutex_win);

    MPI_Finalize();
    return 0;
}
