/*
 * Seed 004, restriction (III), Table 2 case 1: thread 0 probes a message and then receives
 * it with the probed source and tag, while thread 1 receives with the same source and tag
 * at the same time and can take the probed message. Expected verdict: TH004 at the probe
 * and at thread 1's receive.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
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
                MPI_Probe(1, 0, MPI_COMM_WORLD, &st); /* expect: TH004 */
                MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&w, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TH004 */
            }
        }
    } else {
        usleep(200000);
        MPI_Send(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
