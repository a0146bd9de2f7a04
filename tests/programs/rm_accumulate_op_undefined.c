/*
 * An accumulate with an operation MPI does not define for its datatype: rank 0 applies
 * MPI_BAND, a bit-wise operation of integers and bytes, to a double of rank 1's window
 * (MPI 4.1 §12.3.4, §6.9.2). Open MPI rejects the call and aborts the job with its
 * default error handler; MPICH 4.0 accepts it and both ranks then spin in the second
 * MPI_Win_fence forever, where mpicheck ends the hung job with the finding. Expected
 * verdict: RM009 at the MPI_Accumulate.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double mask = 1.0, cells[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(cells, sizeof cells, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Accumulate(&mask, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, MPI_BAND, win); /* expect: RM009 */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
