/*
 * A deadlock in a hybrid program: on each rank the master thread of an OpenMP team waits in
 * MPI_Recv for a message the other rank never sends, while the team's other thread waits in
 * an OpenMP barrier for the master. No thread but the master is inside MPI; the job hangs
 * all the same, and the deadlock is reported at the receives.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int rank, provided, value = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            MPI_Recv(&value, 1, MPI_INT, 1 - rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
#pragma omp barrier
    }
    MPI_Finalize();
    return 0;
}
