/*
 * Plain MPI_Init (MPI_THREAD_SINGLE: "only one thread will execute"), then a parallel
 * region of two threads that makes no MPI call; MPI is called only outside it. The
 * threads still break the level MPI was promised. Expected verdict: TH006 (a warning) at
 * the region; th_funneled_region_ok.c is the twin that asks for MPI_THREAD_FUNNELED.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int x = 0;
    MPI_Init(&argc, &argv);
    #pragma omp parallel num_threads(2) reduction(+ : x) /* expect: TH006 */
    x += omp_get_thread_num() + 1;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
