/*
 * MPI_IN_PLACE passed by a non-root rank of MPI_Reduce (only the root may). Expected
 * verdict: CO004 at the reduce.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x[4] = {1, 2, 3, 4}, y[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(rank == 2 ? MPI_IN_PLACE : x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* expect: CO004 */
    MPI_Finalize();
    return 0;
}
