/*
 * Seed 004, restriction (I)(C): no MPI call may follow MPI_Finalize. The main thread
 * finalizes; after a barrier the other thread still calls MPI_Comm_rank (MPI reports the
 * error: the returned code is ignored here, the error handler is MPI_ERRORS_RETURN).
 * Expected verdict: TH002 at the late call.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    #pragma omp parallel num_threads(2)
    {
        #pragma omp master
        MPI_Finalize();
        #pragma omp barrier
        if (omp_get_thread_num() == 1)
            MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* expect: TH002 */
    }
    return 0;
}
