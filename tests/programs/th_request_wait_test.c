/*
 * Seed 004, Table 1, restriction (II): after a barrier, one thread waits on the shared
 * request while the other tests it; rank 1 sends late, so the two calls overlap.
 * Expected verdict: TH003 at both calls.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank, v = 0;
    MPI_Request request;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &request);
        #pragma omp parallel num_threads(2)
        {
            #pragma omp barrier
            if (omp_get_thread_num() == 0) {
                MPI_Wait(&request, MPI_STATUS_IGNORE); /* expect: TH003 */
            } else {
                MPI_Request copy = request;
                int flag;
                usleep(50000);
                MPI_Test(&copy, &flag, MPI_STATUS_IGNORE); /* expect: TH003 */
            }
        }
    } else {
        usleep(400000);
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
