/*
 * PETSc's star forests (sfpack.c) communicate with an MPI_Type_dup of the caller's
 * committed datatype in persistent sends and receives, without committing the copy:
 * a duplicate has the committed state of its original (MPI 4.1 §5.1.10).
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[8] = {0};
    MPI_Datatype pair, unit;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_dup(pair, &unit);
    if (rank == 0)
        MPI_Send_init(buf, 4, unit, 1, 0, MPI_COMM_WORLD, &req);
    else
        MPI_Recv_init(buf, 4, unit, 0, 0, MPI_COMM_WORLD, &req);
    for (int i = 0; i < 2; i++) {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
    MPI_Type_free(&unit);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
