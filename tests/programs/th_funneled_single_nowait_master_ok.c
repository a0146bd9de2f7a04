/*
 * Twin of th_funneled_single_possible.c: under MPI_THREAD_FUNNELED the `omp single nowait`
 * block only computes, and the MPI calls right after it are in `omp master` and `omp masked`
 * blocks, which only the main thread executes, even though no barrier ends the single block
 * first. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, x = 1, y = 2;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    #pragma omp parallel num_threads(2)
    {
        /* The other thread arrives late: the main thread executes the single blocks. */
        if (omp_get_thread_num() != 0)
            usleep(200000);
        #pragma omp single nowait
        x += 1;
        #pragma omp master
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        #pragma omp barrier
        if (omp_get_thread_num() != 0)
            usleep(200000);
        #pragma omp single nowait
        y += 1;
        #pragma omp masked filter(0)
        MPI_Bcast(&y, 1, MPI_INT, 0, MPI_COMM_WORLD);
        #pragma omp barrier
    }
    MPI_Finalize();
    return 0;
}
