/*
 * A graph ring of 4 nodes made on 3 processes, written for another process count
 * (AR012). The library rejects it and aborts.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int index[4] = {2, 4, 6, 8}, edges[8] = {3, 1, 0, 2, 1, 3, 2, 0};
    MPI_Comm ring;
    MPI_Init(&argc, &argv);
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &ring); /* expect: AR012 */
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
