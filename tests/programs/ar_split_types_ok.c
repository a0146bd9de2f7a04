/*
 * Correct twin of ar_split_type_undefined.c: the split types the library defines, and
 * MPI_UNDEFINED on the ranks that join no communicator.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm node, none;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_free(&node);
#ifdef OPEN_MPI
    MPI_Comm_split_type(MPI_COMM_WORLD, OMPI_COMM_TYPE_NUMA, rank, MPI_INFO_NULL, &node);
#else
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &node);
#endif
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, rank, MPI_INFO_NULL, &none);
    MPI_Finalize();
    return 0;
}
