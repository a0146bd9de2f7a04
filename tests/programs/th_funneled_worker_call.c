/*
 * Seed 004 (MARMOT, hybrid MPI + OpenMP), restriction (V): under MPI_THREAD_FUNNELED only the
 * main thread may call MPI. Thread 1 of the parallel region calls MPI_Allreduce.
 * Expected verdict: TH001 at the worker's call.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, x = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: TH001 */
    }
    MPI_Finalize();
    return 0;
}
