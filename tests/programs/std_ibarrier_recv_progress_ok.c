/*
 * MPI standard, nonblocking collective operations: progress of a nonblocking
 * barrier inside a blocking receive.
 *
 * Rank 0 completes its MPI_Ibarrier before sending; rank 1 starts the barrier,
 * receives, then waits for the barrier. "The MPI library must progress the
 * barrier in the MPI_Recv call", so the program "is guaranteed to terminate".
 * The send is matched by a posted blocking receive: no buffering needed either.
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
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
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf1[0] = 10 + rank;
    buf2[0] = 20 + rank;
    buf3[0] = 30 + rank;
    MPI_Request req;

    switch (rank) {
    case 0:
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Send(buf1, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        break;
    case 1:
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Recv(buf1, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    }

    MPI_Finalize();
    return 0;
}
