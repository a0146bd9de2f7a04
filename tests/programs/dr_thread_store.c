/*
 * Another thread stores into the buffer of a pending MPI_Isend (DR002) while the thread
 * that started the send waits for it to finish, outside MPI. The worker makes no MPI call.
 */
/* mpicheck: ranks=2 check-buffers cflags=-pthread */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>

static int *buf;

static void *worker(void *arg)
{
    (void)arg;
    ((volatile int *)buf)[3] = 42; /* expect: DR002 */
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided, n = 4096;
    MPI_Request req;
    pthread_t thread;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf = calloc(n, sizeof(int));
    if (rank == 0) {
        MPI_Isend(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        pthread_create(&thread, NULL, worker, NULL);
        pthread_join(thread, NULL);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
