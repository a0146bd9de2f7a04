/*
 * MPI standard, nonblocking collective operations: "collective and
 * point-to-point requests can be mixed in functions that enable multiple
 * completions".
 *
 * Rank 0 starts MPI_Ibarrier, sends, then waits for the barrier; rank 1 posts
 * an MPI_Irecv, starts MPI_Ibarrier and completes both with one MPI_Waitall.
 * Valid with two processes; the send finds its receive posted. Expected
 * verdict: none.
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
    MPI_Request reqs[2];

    switch (rank) {
    case 0:
        MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]);
        MPI_Send(buf1, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        break;
    case 1:
        MPI_Irecv(buf1, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        break;
    }

    MPI_Finalize();
    return 0;
}
