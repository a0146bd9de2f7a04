/*
 * Correct twin of dr_omp_wait_access.c: while the master thread waits inside MPI_Wait, the
 * other thread of the team reads the buffer of the pending send (MPI allows it) and writes
 * data on the same pages as the pending buffers but outside them; it writes the buffers
 * only after the wait (`omp barrier`). Nothing is reported, and the data arrive intact.
 */
/* mpicheck: ranks=2 check-buffers cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, provided, n = 1 << 18, bad = 0;
    long sum = 0;
    MPI_Request req;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* The buffer starts 64 bytes into a page and ends 64 bytes before one: its first and last
     * pages hold the neighbours the other thread writes. */
    int *block = aligned_alloc(4096, n * sizeof(int) + 4096);
    int *buf = block + 16;
    volatile int *before = block, *after = buf + n;
    for (int i = 0; i < n; i++) buf[i] = rank * n + i;
    if (rank == 0) {
        MPI_Isend(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        #pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                usleep(100000);
                for (int i = 0; i < n; i += 1024) sum += ((volatile int *)buf)[i];
                before[0] = 1;
                after[0] = 2;
            }
            #pragma omp barrier
            if (omp_get_thread_num() == 1) buf[5] = -1;
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
                before[1] = 3;
                after[1] = 4;
                sum += before[0] + after[0];
            }
            #pragma omp barrier
            if (omp_get_thread_num() == 1) sum += buf[n / 2];
        }
        for (int i = 0; i < n; i++) bad += buf[i] != (i == 5 ? -1 : i);
        if (bad) printf("rank 1: %d wrong elements\n", bad);
    }
    free(block);
    MPI_Finalize();
    return bad != 0 || sum < 0;
}
