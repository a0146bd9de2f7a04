/* Many collective calls: more trace than a small file system holds. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 400000; i++) MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
