/*
 * Twin of th_funneled_single_possible.c under MPI_THREAD_SERIALIZED: any thread may call
 * MPI, one at a time, and the `omp single` block with its closing barrier and the sections
 * (one thread calls MPI, the other computes) give that. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, x = 1, y = 2;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    #pragma omp parallel num_threads(2)
    {
        #pragma omp single
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        #pragma omp sections
        {
            #pragma omp section
            MPI_Bcast(&y, 1, MPI_INT, 0, MPI_COMM_WORLD);
            #pragma omp section
            x += 1;
        }
    }
    MPI_Finalize();
    return 0;
}
