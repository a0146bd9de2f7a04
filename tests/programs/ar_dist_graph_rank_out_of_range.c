/*
 * A distributed graph whose edges wrap one too far: the last rank names `size` as its
 * right neighbour (AR001). The library rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, left, right;
    MPI_Comm graph;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = rank + 1; /* not modulo size */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right, /* expect: AR001 */
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    MPI_Comm_free(&graph);
    MPI_Finalize();
    return 0;
}
