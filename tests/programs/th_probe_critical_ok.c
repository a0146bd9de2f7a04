/*
 * Twin of th_probe_stolen.c: every probe and receive of the two threads is in one critical
 * section, probe and receive together, so no receive can come between another thread's
 * probe and its receive. Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank, a = 1, b = 2, v, w;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        #pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                MPI_Status st;
                #pragma omp critical
                {
                    MPI_Probe(1, 0, MPI_COMM_WORLD, &st);
                    MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
            } else {
                #pragma omp critical
                MPI_Recv(&w, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
    } else {
        usleep(100000);
        MPI_Send(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
