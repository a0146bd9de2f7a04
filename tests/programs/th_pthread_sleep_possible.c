/*
 * Seed 004 (§6) with POSIX threads: under MPI_THREAD_SERIALIZED two threads call MPI, kept
 * apart only by a sleep. Nothing orders the calls. Expected verdict: TH001 at both calls
 * (possible violation).
 */
/* mpicheck: ranks=2 cflags=-pthread */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static int size;

static void *worker(void *arg)
{
    (void)arg;
    usleep(200000);
    MPI_Comm_size(MPI_COMM_WORLD, &size); /* expect: TH001 */
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    pthread_t thread;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    pthread_create(&thread, NULL, worker, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* expect: TH001 */
    pthread_join(thread, NULL);
    MPI_Finalize();
    return 0;
}
