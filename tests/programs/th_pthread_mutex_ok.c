/*
 * Twin of th_pthread_sleep_possible.c: a mutex serializes the two threads' MPI calls, and
 * pthread_join orders the worker's call before MPI_Finalize. Correct under
 * MPI_THREAD_SERIALIZED. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-pthread */
/* expect: none */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;
static int size;

static void *worker(void *arg)
{
    (void)arg;
    usleep(100000);
    pthread_mutex_lock(&mpi_lock);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_mutex_unlock(&mpi_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    pthread_t thread;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    pthread_create(&thread, NULL, worker, NULL);
    pthread_mutex_lock(&mpi_lock);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_mutex_unlock(&mpi_lock);
    pthread_join(thread, NULL);
    MPI_Finalize();
    return 0;
}
