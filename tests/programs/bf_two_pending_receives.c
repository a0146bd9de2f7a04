/*
 * Two nonblocking receives outstanding at once whose buffers overlap in bytes 16..31
 * (BF001 at the second MPI_Irecv): which message ends up there depends on timing.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[12] = {0}, out[8] = {0};
    MPI_Request r[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(buf, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(buf + 4, 8, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[1]); /* expect: BF001 */
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else {
        MPI_Send(out, 8, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(out, 8, MPI_INT, 1, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
