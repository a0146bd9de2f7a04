/* The coordinator of a job of two programs (`mpicheck run -n 1 -- coordinator : -n 2
 * worker`): broadcasts the step count as an int; the workers take it as a float (TY001). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, steps = 10;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Bcast(&steps, 1, MPI_INT, 0, MPI_COMM_WORLD); /* site: bcast */
    printf("coordinator: rank %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
