/*
 * Twin of th_single_region_without_mpi.c: the program asks for MPI_THREAD_FUNNELED,
 * computes in a parallel region of two threads and calls MPI only from the main thread,
 * outside it. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int x = 0, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    #pragma omp parallel num_threads(2) reduction(+ : x)
    x += omp_get_thread_num() + 1;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
