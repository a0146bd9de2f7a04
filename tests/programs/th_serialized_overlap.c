/*
 * Seed 004, restriction (V): under MPI_THREAD_SERIALIZED two threads must never be inside
 * MPI at the same time. Both threads of rank 0 block in MPI_Recv for messages that rank 1
 * sends late, so the two calls overlap in every run. Expected verdict: TH001 at both calls.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank, a = 1, b = 2;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        #pragma omp parallel num_threads(2)
        {
            /* Any tag: either thread may take either message (one sender, in order). */
            if (omp_get_thread_num() == 0)
                MPI_Recv(&a, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TH001 */
            else
                MPI_Recv(&b, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TH001 */
        }
    } else {
        usleep(300000);
        MPI_Send(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
