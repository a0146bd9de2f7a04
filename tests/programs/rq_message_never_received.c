/*
 * Every rank tells every other rank that it is done, and nobody receives the notices
 * (RQ005): the sends complete only because MPI buffers small messages, and the messages
 * are still pending when MPI_Finalize is called. The pattern of OpenCoarrays' runtime at
 * image termination. Not a potential deadlock of the ranks' order (no DL002): nobody
 * posts the receives at all.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

#define DONE_TAG 4242

int main(int argc, char **argv)
{
    int rank, size, done = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < size; i++)
        if (i != rank)
            MPI_Send(&done, 1, MPI_INT, i, DONE_TAG, MPI_COMM_WORLD); /* expect: RQ005 */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
