/*
 * A store into the buffer of a pending MPI_Isend (DR002): MPI may still be reading it, so
 * the receiver gets the old or the new value depending on timing and message size. The
 * store is found in the unmodified binary (`--check-buffers`); the program's result is
 * unchanged by the check.
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1024;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buf = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) buf[i] = i;
    if (rank == 0) {
        MPI_Isend(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        buf[0]++; /* expect: DR002 */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (buf[1] != 1) printf("wrong data\n");
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
