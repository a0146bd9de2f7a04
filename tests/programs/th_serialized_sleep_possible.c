/*
 * Seed 004, §6 (violations that can occur in another run): under MPI_THREAD_SERIALIZED the
 * two threads' calls are kept apart only by a sleep, not by synchronization. They did not
 * overlap in this run, but nothing orders them. Expected verdict: TH001 at both calls
 * (possible violation).
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* expect: TH001 */
        } else {
            usleep(200000);
            MPI_Comm_size(MPI_COMM_WORLD, &size); /* expect: TH001 */
        }
    }
    MPI_Finalize();
    return 0;
}
