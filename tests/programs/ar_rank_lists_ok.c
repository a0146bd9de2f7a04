/*
 * Rank lists used right: nothing to report. Groups made of, without and by a range (of
 * negative stride) of the world's ranks, a list on a union whose size the rank learns by
 * asking, a graph ring with its running-total index, distributed graphs with every rank's
 * own edges and with its neighbours.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, n, left, right;
    int all[3] = {2, 0, 1}, first[1] = {0}, ranges[1][3] = {{2, 0, -2}};
    int index[3] = {2, 4, 6}, edges[6] = {1, 2, 0, 2, 0, 1};
    int degrees[1] = {2}, destinations[2];
    MPI_Group world, some, others, ends, both, again;
    MPI_Comm ring, adjacent, general;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, size, all, &some);
    MPI_Group_excl(world, 1, first, &others);
    MPI_Group_range_incl(world, 1, ranges, &ends); /* ranks 2 and 0 */
    MPI_Group_union(ends, others, &both);
    MPI_Group_size(both, &n);
    MPI_Group_incl(both, n, all, &again);
    MPI_Graph_create(MPI_COMM_WORLD, 3, index, edges, 0, &ring);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &adjacent);
    destinations[0] = left;
    destinations[1] = right;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, degrees, destinations, MPI_UNWEIGHTED,
                          MPI_INFO_NULL, 0, &general);
    MPI_Comm_free(&general);
    MPI_Comm_free(&adjacent);
    MPI_Comm_free(&ring);
    MPI_Group_free(&again);
    MPI_Group_free(&both);
    MPI_Group_free(&ends);
    MPI_Group_free(&others);
    MPI_Group_free(&some);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
