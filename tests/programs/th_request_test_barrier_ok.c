/*
 * Twin of th_request_test_sleep_possible.c: a barrier orders the test before the wait, so
 * the two threads never use the request at the same time. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
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
                int flag;
                MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
            }
            #pragma omp barrier
            #pragma omp master
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    } else {
        usleep(100000);
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
