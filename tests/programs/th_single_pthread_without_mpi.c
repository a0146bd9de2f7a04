/*
 * Plain MPI_Init (MPI_THREAD_SINGLE), then a POSIX thread that only computes while the
 * main thread calls MPI; the main thread joins it before MPI_Finalize. The worker makes no
 * MPI call, but MPI was promised that only one thread executes. Expected verdict: TH006
 * (a warning) at pthread_create; th_pthread_mutex_ok.c and friends ask for a level.
 */
/* mpicheck: ranks=2 cflags=-pthread */
#include <mpi.h>
#include <pthread.h>

static void *work(void *arg)
{
    double *sum = arg;
    for (int i = 1; i <= 1000; i++)
        *sum += 1.0 / i;
    return NULL;
}

int main(int argc, char **argv)
{
    double sum = 0;
    int x = 1;
    pthread_t worker;
    MPI_Init(&argc, &argv);
    pthread_create(&worker, NULL, work, &sum); /* expect: TH006 */
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    pthread_join(worker, NULL);
    MPI_Finalize();
    return 0;
}
