/*
 * Twin of th_pthread_sleep_possible.c: the worker posts a semaphore after its MPI call and
 * the main thread waits for it before its own, and a POSIX barrier orders the main thread's
 * next call before the worker's second one. Correct under MPI_THREAD_SERIALIZED.
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-pthread */
/* expect: none */
#include <mpi.h>
#include <pthread.h>
#include <semaphore.h>

static sem_t done;
static pthread_barrier_t barrier;
static int size, rank;

static void *worker(void *arg)
{
    (void)arg;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sem_post(&done);
    pthread_barrier_wait(&barrier);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t thread;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    sem_init(&done, 0, 0);
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_create(&thread, NULL, worker, NULL);
    sem_wait(&done);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_barrier_wait(&barrier);
    pthread_join(thread, NULL);
    pthread_barrier_destroy(&barrier);
    sem_destroy(&done);
    MPI_Finalize();
    return 0;
}
