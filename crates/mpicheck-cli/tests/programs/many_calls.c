/* Many collective calls: more trace than a small file system holds. The operation cycles
 * through five, so that no call repeats the one before (a run of identical calls is counted
 * in one record, trace format 6) and no loop of 2 to 4 calls repeats (counted in a cycle
 * record, format 7): each call is written. The last call is a sum. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, sum = 0;
    MPI_Op ops[5] = {MPI_MAX, MPI_MIN, MPI_BOR, MPI_BAND, MPI_SUM};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 400000; i++)
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, ops[i % 5], MPI_COMM_WORLD);
    if (rank == 0) printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
