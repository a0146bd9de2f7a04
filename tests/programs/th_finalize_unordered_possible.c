/*
 * Seed 004, restriction (I)(B) as a possible violation: the main thread finalizes inside the
 * parallel region while the other thread's MPI call is kept before it only by a sleep. In
 * another run the call can run during or after MPI_Finalize. Expected verdict: TH002 at both
 * calls.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* expect: TH002 */
        } else {
            usleep(200000);
            MPI_Finalize(); /* expect: TH002 */
        }
    }
    return 0;
}
