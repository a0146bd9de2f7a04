/*
 * MPI standard, "Order" of point-to-point messages: messages from different
 * senders are not ordered, so which one an MPI_ANY_SOURCE receive matches
 * depends on timing.
 *
 * Rank 0 receives once with MPI_ANY_SOURCE, then once from rank 2; ranks 1 and
 * 2 each send one message to rank 0. If the wildcard receive takes rank 1's
 * message, the program completes; if it takes rank 2's, the receive from rank 2
 * waits forever (rank 1's message does not match it). Rank 2 sleeps 500 ms
 * before sending, so the traced run is the lucky one. Expected verdict: DL003
 * (another matching deadlocks) and MR001 (message race) at the wildcard
 * MPI_Recv.
 *
 * Correct twin: std_specific_recvs_ok.c.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int x = 0, y = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    switch (rank) {
    case 0:
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL003, MR001 */
        MPI_Recv(&y, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case 1:
        x = 1;
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        break;
    case 2:
        y = 2;
        usleep(500 * 1000);
        MPI_Send(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        break;
    }

    MPI_Finalize();
    return 0;
}
