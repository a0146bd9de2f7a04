/*
 * MPI standard, "Correctness" of collective communication: "an unsafe,
 * non-deterministic program".
 *
 * Rank 0 broadcasts then sends to rank 1; rank 2 sends to rank 1 then
 * broadcasts; rank 1 receives with MPI_ANY_SOURCE, broadcasts, and receives with
 * MPI_ANY_SOURCE again. The first wildcard receive may match rank 2's send
 * (sent before the broadcast) or rank 0's (sent after it: possible because the
 * broadcast need not synchronize). Expected verdict: MR001 (message race) at
 * rank 1's first wildcard MPI_Recv.
 *
 * The verdict depends on the wildcard match: this program steers the run to the
 * standard's first execution (rank 2's message matches the first receive) by
 * having rank 0 sleep 500 ms before its send. That execution needs neither
 * buffering nor a non-synchronizing broadcast, and the other matching does not
 * deadlock either, so MR001 is the only finding expected. (Were rank 0's message
 * matched first, the run would depend on the broadcast not synchronizing and a
 * checker could add DL002.)
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int buf1[4] = {0}, buf2[4] = {0}, buf3[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf1[0] = 10 + rank;
    buf2[0] = 20 + rank;
    buf3[0] = 30 + rank;
    switch (rank) {
    case 0:
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD);
        usleep(500 * 1000);
        MPI_Send(buf2, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        break;
    case 1:
        MPI_Recv(buf2, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: MR001 */
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Recv(buf2, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case 2:
        MPI_Send(buf2, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD);
        break;
    }

    MPI_Finalize();
    return 0;
}
