/* Many collective calls: more trace than a small file system holds. The operation alternates,
 * so that no two calls in a row are identical: a run of identical calls is counted in one
 * record (trace format 6) and would fit. The last call is a sum. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 400000; i++)
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, i % 2 ? MPI_SUM : MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
