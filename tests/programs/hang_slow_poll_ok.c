/*
 * Slow but live: rank 0 polls with MPI_Test while rank 1 computes for longer than the
 * deadlock timeout (3 s in the test harness), then sends. Nothing may be reported.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <time.h>

static void compute_for(double seconds)
{
    volatile double x = 0;
    double start = MPI_Wtime();
    while (MPI_Wtime() - start < seconds)
        for (int i = 0; i < 100000; i++) x += i * 0.5;
}

int main(int argc, char **argv)
{
    int rank, in = 0, out = 1, flag = 0;
    MPI_Request request;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&in, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &request);
        while (!flag)
            MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    } else {
        compute_for(5.0);
        MPI_Send(&out, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
/* expect: none */
