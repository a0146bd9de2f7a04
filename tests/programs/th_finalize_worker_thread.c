/*
 * Seed 004, restriction (I)(A): MPI_Finalize must be called by the thread that initialized
 * MPI. Here the second thread of a parallel region finalizes. Expected verdict: TH002 at
 * MPI_Finalize.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            MPI_Finalize(); /* expect: TH002 */
    }
    return 0;
}
