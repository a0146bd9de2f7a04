/*
 * Twin of th_collectives_sleep_possible.c: an OpenMP barrier orders the two threads'
 * collectives, thread 0's first on every process. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        #pragma omp barrier
        if (omp_get_thread_num() == 1)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
