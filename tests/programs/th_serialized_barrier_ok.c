/*
 * Twin of th_serialized_sleep_possible.c: an OpenMP barrier orders the two threads' calls,
 * so they can never overlap. Correct under MPI_THREAD_SERIALIZED. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        #pragma omp barrier
        if (omp_get_thread_num() == 1)
            MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    MPI_Finalize();
    return 0;
}
