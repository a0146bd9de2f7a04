/*
 * MPI standard, nonblocking collective operations: "the progress of multiple
 * outstanding nonblocking collective operations is completely independent".
 *
 * Two MPI_Ibcast calls, completed in reverse order (second request first).
 * Correct. Expected verdict: none.
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
    int i;

    for (i = 0; i < 4; i++) buf1[i] += i; /* compute(buf1) */
    MPI_Ibcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
    for (i = 0; i < 4; i++) buf2[i] += i; /* compute(buf2) */
    MPI_Ibcast(buf2, 4, MPI_INT, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    /* nothing is known about the status of the first bcast here */
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);

    MPI_Finalize();
    return 0;
}
