/*
 * Twin of th_probe_stolen.c: each thread uses its own duplicate of MPI_COMM_WORLD, so the
 * other thread's receive cannot match the probed message. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank, a = 1, b = 2, v, w;
    MPI_Comm comms[2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    if (rank == 0) {
        #pragma omp parallel num_threads(2)
        {
            MPI_Comm mine = comms[omp_get_thread_num()];
            if (omp_get_thread_num() == 0) {
                MPI_Status st;
                MPI_Probe(1, 0, mine, &st);
                MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, mine, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&w, 1, MPI_INT, 1, 0, mine, MPI_STATUS_IGNORE);
            }
        }
    } else {
        /* Nonblocking: rank 0's threads receive in either order. */
        MPI_Request ra, rb;
        usleep(200000);
        MPI_Isend(&a, 1, MPI_INT, 0, 0, comms[0], &ra);
        MPI_Isend(&b, 1, MPI_INT, 0, 0, comms[1], &rb);
        MPI_Wait(&ra, MPI_STATUS_IGNORE);
        MPI_Wait(&rb, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    MPI_Finalize();
    return 0;
}
