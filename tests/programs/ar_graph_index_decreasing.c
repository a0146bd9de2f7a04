/*
 * A graph whose index holds degrees instead of running totals (AR012): index must be
 * non-decreasing. The library rejects it and aborts.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    /* A ring of 3: node i has 2 neighbours, so index should be {2, 4, 6}. */
    int index[3] = {2, 2, 1}, edges[6] = {1, 2, 0, 2, 0, 1};
    MPI_Comm graph;
    MPI_Init(&argc, &argv);
    MPI_Graph_create(MPI_COMM_WORLD, 3, index, edges, 0, &graph); /* expect: AR012 */
    MPI_Comm_free(&graph);
    MPI_Finalize();
    return 0;
}
