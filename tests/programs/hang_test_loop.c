/*
 * A deadlock in which a rank busy-polls: rank 0 waits for rank 1's message with MPI_Test in
 * a loop, rank 1 waits in MPI_Recv for a message rank 0 never sends. The job hangs without
 * any rank blocked in MPI; the polls are no progress, and the deadlock is reported at the
 * polling call and the receive.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in = 0, out = 1, flag = 0;
    MPI_Request request;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&in, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &request);
        while (!flag)
            MPI_Test(&request, &flag, MPI_STATUS_IGNORE); /* expect: DL001 */
        MPI_Send(&out, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&in, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
        MPI_Send(&out, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
