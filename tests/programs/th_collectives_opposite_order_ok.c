/*
 * Each thread broadcasts from rank 0 on its own duplicate of MPI_COMM_WORLD. On rank 0
 * thread 0 enters first, on rank 1 thread 1 does (the other thread sleeps first), so the
 * two ranks record the broadcasts in opposite orders. Correct: nothing orders one
 * thread's broadcast after the other's. mpicheck used to replay each rank's calls as one
 * sequence in record order, so the strict replay found a cycle (rank 0 in the broadcast on
 * the first communicator, rank 1 in the one on the second) and reported a false DL002.
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Comm comms[2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    #pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num(), x = rank;
        if (t != rank)
            usleep(200000);
        MPI_Bcast(&x, 1, MPI_INT, 0, comms[t]);
    }
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    MPI_Finalize();
    return 0;
}
