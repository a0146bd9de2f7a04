/*
 * A split type the library does not define: a number written where a constant was meant
 * (AR011). MPI rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int type = 77; /* meant MPI_COMM_TYPE_SHARED */
    MPI_Comm_split_type(MPI_COMM_WORLD, type, rank, MPI_INFO_NULL, &node); /* expect: AR011 */
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
