/*
 * Twin of th_collectives_same_comm.c: each thread calls the collective on its own duplicate
 * of MPI_COMM_WORLD. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Comm comms[2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    #pragma omp parallel num_threads(2)
    {
        int x = 1;
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, comms[omp_get_thread_num()]);
    }
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    MPI_Finalize();
    return 0;
}
