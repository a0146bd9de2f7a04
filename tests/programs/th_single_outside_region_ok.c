/*
 * Twin of th_single_init_parallel.c: with plain MPI_Init the program computes in a parallel
 * region but calls MPI only outside it, when a single thread runs. Correct.
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int x = 0;
    MPI_Init(&argc, &argv);
    #pragma omp parallel num_threads(2) reduction(+ : x)
    x += omp_get_thread_num() + 1;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
