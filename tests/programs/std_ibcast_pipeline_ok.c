/*
 * MPI standard, nonblocking collective operations: "multiple nonblocking
 * collective operations can be outstanding on a single communicator and match
 * in order".
 *
 * Three MPI_Ibcast calls from root 0, each after some local computation, then
 * one MPI_Waitall. Correct. Expected verdict: none.
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
    MPI_Request reqs[3];
    int i;

    for (i = 0; i < 4; i++) buf1[i] += i; /* compute(buf1) */
    MPI_Ibcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
    for (i = 0; i < 4; i++) buf2[i] += i; /* compute(buf2) */
    MPI_Ibcast(buf2, 4, MPI_INT, 0, MPI_COMM_WORLD, &reqs[1]);
    for (i = 0; i < 4; i++) buf3[i] += i; /* compute(buf3) */
    MPI_Ibcast(buf3, 4, MPI_INT, 0, MPI_COMM_WORLD, &reqs[2]);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);

    MPI_Finalize();
    return 0;
}
