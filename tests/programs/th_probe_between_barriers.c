/*
 * Seed 004, restriction (III), Table 2 case 4 (constraint B): thread 0 probes; after a
 * barrier thread 1 receives with the same source and tag; after a second barrier thread 0
 * receives what it probed. Thread 1 takes the probed message in every run.
 * Expected verdict: TH004 at the probe and at thread 1's receive.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, a = 1, b = 2, v, w;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Status st;
        #pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0)
                MPI_Probe(1, 0, MPI_COMM_WORLD, &st); /* expect: TH004 */
            #pragma omp barrier
            if (omp_get_thread_num() == 1)
                MPI_Recv(&w, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TH004 */
            #pragma omp barrier
            if (omp_get_thread_num() == 0)
                MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Send(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
