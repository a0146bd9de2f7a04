/*
 * MPI_Bsend with no buffer attached (RS003): MPI behaves as if a zero-sized buffer
 * were attached, the send fails and the default error handler aborts the job. The
 * finding must still be in the report.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Bsend(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect: RS003 */
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
