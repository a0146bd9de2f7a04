/*
 * Twin of ar_type_dup_persistent_ok.c: the duplicate of a datatype that was never
 * committed is not committed either (AR006 where it is used). The library rejects it and
 * aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[8] = {0};
    MPI_Datatype pair, unit;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_dup(pair, &unit);
    if (rank == 0)
        MPI_Send(buf, 4, unit, 1, 0, MPI_COMM_WORLD); /* expect: AR006 */
    else
        MPI_Recv(buf, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&unit);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
