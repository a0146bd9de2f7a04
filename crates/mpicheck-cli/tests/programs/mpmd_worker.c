/* A worker of a job of two programs (see mpmd_coordinator.c). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    float steps = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Bcast(&steps, 1, MPI_FLOAT, 0, MPI_COMM_WORLD); /* site: bcast */
    printf("worker: rank %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
