/*
 * Twin of th_request_wait_test.c: each thread completes only the requests it started (the
 * usual MPI_THREAD_MULTIPLE pattern). Open MPI hands out one shared, already completed
 * request object for sends that complete at once, so the handles of the two threads' sends
 * can be equal; they are still different requests. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    #pragma omp parallel num_threads(2)
    {
        int tag = omp_get_thread_num(), out = rank, in;
        MPI_Request reqs[2];
        for (int i = 0; i < 20; i++) {
            /* The barriers keep the trace replayable: mpicheck replays a rank's threads
             * one after the other, in the order their calls were recorded. */
            MPI_Irecv(&in, 1, MPI_INT, 1 - rank, tag, MPI_COMM_WORLD, &reqs[0]);
            #pragma omp barrier
            MPI_Isend(&out, 1, MPI_INT, 1 - rank, tag, MPI_COMM_WORLD, &reqs[1]);
            #pragma omp barrier
            MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
