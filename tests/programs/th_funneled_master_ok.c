/*
 * Twin of th_funneled_worker_call.c: under MPI_THREAD_FUNNELED the call is made by the
 * master (main) thread of the parallel region, the other thread waits at the barrier.
 * Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, x = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    #pragma omp parallel num_threads(2)
    {
        #pragma omp master
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        #pragma omp barrier
    }
    MPI_Finalize();
    return 0;
}
