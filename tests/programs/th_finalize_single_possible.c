/*
 * Seed 004, restriction (I)(A) as a possible violation: MPI_Finalize sits in an `omp single`
 * block. The other thread arrives late, so the main thread executes the block in this run,
 * but either thread of the team may: in another run a thread other than the one that
 * initialized MPI finalizes it. Expected verdict: TH002 (possible).
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Barrier(MPI_COMM_WORLD);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() != 0)
            usleep(300000);
        #pragma omp single
        {
            MPI_Finalize(); /* expect: TH002 */
        }
    }
    return 0;
}
