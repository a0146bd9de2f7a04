/* Cost of the interposition hot path: MPI_Send to MPI_PROC_NULL in a loop, ns per call.
 * Run once plainly and once with the library preloaded (MPICHECK_OUT_DIR set), compare. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000000, v = 0, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n / 10; i++) MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        double t = (MPI_Wtime() - t0) / n * 1e9;
        if (t < best) best = t;
    }
    if (rank == 0) printf("MPI_Send(MPI_PROC_NULL): %.1f ns per call (best of 5 x %d)\n", best, n);
    MPI_Finalize();
    return 0;
}
