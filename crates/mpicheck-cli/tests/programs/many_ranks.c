/* Any number of ranks: a sum over all of them and a message to the next one. Used with
 * more ranks than a low limit on open files allows the analysis (tests/survival.rs). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, one = 1, sum = 0, from_previous = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &from_previous, 1, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("sum %d from %d\n", sum, from_previous);
    MPI_Finalize();
    return 0;
}
