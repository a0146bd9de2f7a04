/*
 * Correct twin of ty_neighbor_mismatch.c: matching signatures on a periodic 2 x 2 grid (one
 * rank receives through a contiguous type of one int), on a non-periodic 1-D grid (borders
 * are MPI_PROC_NULL) and on a directed ring. Expected verdict: no finding.
 */
/* mpicheck: ranks=4 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {2, 2}, periods[2] = {1, 1}, line = 4, open_ends = 0;
    int a[8] = {0}, b[16] = {0}, counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3};
    MPI_Comm cart, chain, ring;
    MPI_Datatype one_int;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(1, MPI_INT, &one_int);
    MPI_Type_commit(&one_int);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, rank == 3 ? one_int : MPI_INT, cart);
    MPI_Neighbor_alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, cart);
    MPI_Cart_create(MPI_COMM_WORLD, 1, &line, &open_ends, 0, &chain);
    MPI_Neighbor_alltoall(a, 2, MPI_INT, b, 2, MPI_INT, chain);
    int source = (rank + size - 1) % size, dest = (rank + 1) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &source, MPI_UNWEIGHTED, 1, &dest,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
    int scount = rank == 0 ? 2 : 1, rcount = rank == 1 ? 2 : 1;
    MPI_Neighbor_alltoallv(a, &scount, displs, MPI_INT, b, &rcount, displs, MPI_INT, ring);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&chain);
    MPI_Comm_free(&cart);
    MPI_Type_free(&one_int);
    MPI_Finalize();
    return 0;
}
