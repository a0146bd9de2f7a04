/*
 * A negative split type meant as "no communicator" instead of MPI_UNDEFINED (AR011). The
 * library rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int type = rank == 0 ? MPI_COMM_TYPE_SHARED : -1;
    MPI_Comm_split_type(MPI_COMM_WORLD, type, rank, MPI_INFO_NULL, &node); /* expect: AR011 */
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
