/*
 * Each thread exchanges with the same thread of the other rank and then reduces what it
 * received on its own communicator, every round, with no barrier between its calls and the
 * other thread's. Correct. MPICH hands a request handle that one thread's wait freed to the
 * other thread's MPI_Irecv, which may have entered MPI before that wait: its record then
 * comes first though its request was made last. mpicheck used to pair the waits with the
 * wrong receives and report a false BF001 (the reduction's buffer "pending" in the other
 * thread's receive) in one run of four to six under MPICH. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp,-O2 */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comms[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    #pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        for (int i = 0; i < 300; i++) {
            int out = i + t, in = -1, sum = 0;
            MPI_Request reqs[2];
            MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, t, MPI_COMM_WORLD, &reqs[0]);
            MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, t, MPI_COMM_WORLD, &reqs[1]);
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
            MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
            MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, comms[t]);
            #pragma omp barrier
        }
    }
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    MPI_Finalize();
    return 0;
}
