/*
 * Seed 004, restriction (II) as a possible violation: one thread tests the shared request,
 * the other waits on it after a sleep. They did not overlap in this run, but nothing orders
 * them. Expected verdict: TH003 at both calls.
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
            if (omp_get_thread_num() == 1) {
                MPI_Request copy = request;
                int flag;
                MPI_Test(&copy, &flag, MPI_STATUS_IGNORE); /* expect: TH003 */
            } else {
                usleep(200000);
                MPI_Wait(&request, MPI_STATUS_IGNORE); /* expect: TH003 */
            }
        }
    } else {
        usleep(100000);
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
