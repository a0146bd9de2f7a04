/*
 * MPI-3 neighborhood collectives with type signature mismatches: on a periodic 2 x 2
 * cartesian grid rank 3 receives its neighbors' ints as floats; on a directed ring (adjacent
 * distributed graph) rank 1 expects 2 ints where its source sends 1. Expected verdict: TY001
 * at each call.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {2, 2}, periods[2] = {1, 1};
    int a[8] = {0}, b[16] = {0}, counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3};
    MPI_Comm cart, ring;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, rank == 3 ? MPI_FLOAT : MPI_INT, cart); /* expect: TY001 */
    MPI_Neighbor_alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, cart);
    int source = (rank + size - 1) % size, dest = (rank + 1) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &source, MPI_UNWEIGHTED, 1, &dest,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
    int rcount = rank == 1 ? 2 : 1;
    MPI_Neighbor_alltoallv(a, counts, displs, MPI_INT, b, &rcount, displs, MPI_INT, ring); /* expect: TY001 */
    MPI_Comm_free(&ring);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
