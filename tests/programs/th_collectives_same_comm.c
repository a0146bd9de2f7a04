/*
 * Seed 004, restriction (IV): both threads of every process call MPI_Allreduce on
 * MPI_COMM_WORLD at the same time. Expected verdict: TH005 at the call.
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
        int x = 1;
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: TH005 */
    }
    MPI_Finalize();
    return 0;
}
