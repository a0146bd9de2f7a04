/*
 * Seed 004, restriction (IV) as a possible violation: the two threads' barriers on
 * MPI_COMM_WORLD are kept apart by a sleep only. They did not overlap in this run, but
 * nothing orders them. Expected verdict: TH005 at both calls.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            MPI_Barrier(MPI_COMM_WORLD); /* expect: TH005 */
        } else {
            usleep(300000);
            MPI_Barrier(MPI_COMM_WORLD); /* expect: TH005 */
        }
    }
    MPI_Finalize();
    return 0;
}
