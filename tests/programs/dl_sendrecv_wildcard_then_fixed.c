/*
 * Rank 0 sends to rank 1 and takes a message from any source in one MPI_Sendrecv, then
 * receives from rank 2 by name. Rank 1 sends its message and takes rank 0's; rank 2 sleeps
 * 500 ms, then sends. In this run the sendrecv's wildcard receive half takes rank 1's
 * message and the program ends; had rank 2's come first, rank 0 would wait forever in its
 * sendrecv (its send to rank 1 never received: rank 1 waits to send to rank 0). The
 * receive half of a sendrecv races as a receive does. Expected verdict: DL003 and MR001
 * at the MPI_Sendrecv.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, z = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Sendrecv(&z, 1, MPI_INT, 1, 5, &x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL003, MR001 */
        MPI_Recv(&y, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        x = 1;
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&z, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        y = 2;
        usleep(500 * 1000);
        MPI_Send(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
