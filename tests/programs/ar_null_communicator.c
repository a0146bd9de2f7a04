/*
 * A barrier on the MPI_COMM_NULL that MPI_Comm_split returns to the ranks left out by MPI_UNDEFINED (AR004 on rank 1). The library aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size, data[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, rank, &sub);
    MPI_Barrier(sub); /* expect: AR004 */
    if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
