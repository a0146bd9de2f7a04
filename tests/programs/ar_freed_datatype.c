/*
 * A send with a copy of a datatype handle after the datatype was freed (AR005). MPI may abort or send garbage.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size, data[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype pair, copy;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    copy = pair;
    MPI_Type_free(&pair);
    if (rank == 0) {
        MPI_Send(data, 1, copy, 1, 0, MPI_COMM_WORLD); /* expect: AR005 */
    } else {
        MPI_Recv(data, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
