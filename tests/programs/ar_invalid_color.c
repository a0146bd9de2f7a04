/*
 * A negative color meant as "no group" instead of MPI_UNDEFINED (AR011). The library
 * rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm sub;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int color = rank == 0 ? 0 : -1;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &sub); /* expect: AR011 */
    if (sub != MPI_COMM_NULL)
        MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
