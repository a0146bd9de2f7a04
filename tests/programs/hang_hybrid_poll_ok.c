/*
 * Slow but live, hybrid: on each rank one OpenMP thread polls an MPI_Iprobe that never finds
 * anything while another thread computes for longer than the deadlock timeout and then ends
 * the loop through a shared flag. Nothing may be reported.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int rank, provided, found = 0;
    volatile int done = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            while (!done && !found)
                MPI_Iprobe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
        } else {
            volatile double x = 0;
            double start = omp_get_wtime();
            while (omp_get_wtime() - start < 5.0)
                for (int i = 0; i < 100000; i++) x += i * 0.5;
#pragma omp atomic write
            done = 1;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
/* expect: none */
