/*
 * Seed 004, restriction (I)(B) with POSIX threads: the main thread finalizes without joining
 * the worker, whose MPI call is kept before MPI_Finalize only by a sleep.
 * Expected verdict: TH002 at both calls (possible violation).
 */
/* mpicheck: ranks=2 cflags=-pthread */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static int size;

static void *worker(void *arg)
{
    (void)arg;
    MPI_Comm_size(MPI_COMM_WORLD, &size); /* expect: TH002 */
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t thread;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    pthread_create(&thread, NULL, worker, NULL);
    usleep(200000);
    MPI_Finalize(); /* expect: TH002 */
    pthread_join(thread, NULL);
    return 0;
}
