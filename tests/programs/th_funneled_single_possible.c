/*
 * Under MPI_THREAD_FUNNELED an MPI call sits in an `omp single` block and in the first
 * section of `omp sections`. The other thread arrives late, so the main thread executes both
 * blocks in this run, but either thread of the team may execute them: in another run a
 * thread other than the main one calls MPI. Expected verdict: TH001 (possible) at each call.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, x = 1, y = 2;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() != 0)
            usleep(300000);
        #pragma omp single
        {
            MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: TH001 */
        }
        if (omp_get_thread_num() != 0)
            usleep(300000);
        #pragma omp sections
        {
            #pragma omp section
            MPI_Bcast(&y, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect: TH001 */
            #pragma omp section
            y += 0;
        }
    }
    MPI_Finalize();
    return 0;
}
