/*
 * Twin of th_finalize_unordered_possible.c: a barrier orders the other thread's call before
 * MPI_Finalize of the main thread. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        #pragma omp barrier
        #pragma omp master
        MPI_Finalize();
    }
    return 0;
}
