/*
 * Threads of an OpenMP team access pending buffers while the master thread waits for them
 * inside MPI_Wait (DR002): on rank 0 a thread stores into the buffer of a pending MPI_Isend,
 * on rank 1 a thread loads from the buffer of a pending MPI_Irecv. The partner posts its
 * side only after half a second, so the 1 MiB operations are still pending when the threads
 * touch them; the data must still arrive intact.
 */
/* mpicheck: ranks=2 check-buffers cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, provided, n = 1 << 18, bad = 0;
    volatile int sink = 0;
    MPI_Request req;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buf = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) buf[i] = rank * n + i;
    if (rank == 0) {
        MPI_Isend(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        #pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                usleep(100000);
                ((volatile int *)buf)[5] = -1; /* expect: DR002 keys */
            }
        }
        usleep(500000);
        MPI_Send(buf, n, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else {
        usleep(500000);
        MPI_Recv(buf, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(buf, n, MPI_INT, 0, 1, MPI_COMM_WORLD, &req);
        #pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                usleep(100000);
                sink = ((volatile int *)buf)[n / 2]; /* expect: DR002 keys */
            }
        }
        for (int i = 0; i < n; i++) bad += buf[i] != (i == 5 ? -1 : i);
        if (bad) printf("rank 1: %d wrong elements\n", bad);
    }
    free(buf);
    MPI_Finalize();
    return bad != 0 || sink < -1;
}
