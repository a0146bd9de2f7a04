/*
 * Seed 004, restriction (V) with plain MPI_Init: the program asks for no thread support
 * (MPI_THREAD_SINGLE: "only one thread will execute"), yet the main thread calls MPI inside
 * a parallel region of two threads. Expected verdict: TH001 at the call.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int x = 1;
    MPI_Init(&argc, &argv);
    #pragma omp parallel num_threads(2)
    {
        #pragma omp master
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: TH001 */
        #pragma omp barrier
    }
    MPI_Finalize();
    return 0;
}
