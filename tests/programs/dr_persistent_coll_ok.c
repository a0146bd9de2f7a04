/*
 * Correct uses of the buffers of persistent collectives (MPI 4) under --check-buffers: the
 * buffers are written and read between a request's completion and its next start (MPI
 * allows it: an inactive request uses nothing), the send buffer is read while the request
 * is active, a root reads its MPI_Bcast_init buffer, and after MPI_Request_free the buffers
 * are the program's again. Results must be right. (Open MPI 4.1 has these only as MPIX_.)
 */
/* mpicheck: ranks=2 check-buffers mpi=mpich */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 14, bad = 0;
    long sum = 0;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int)), *c = malloc(n * sizeof(int));
    MPI_Allreduce_init(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
    MPI_Bcast_init(c, n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < n; i++) a[i] = rank + i + round;
        for (int i = 0; i < n; i++) c[i] = rank == 0 ? i * round : -1;
        MPI_Startall(2, reqs);
        for (int i = 0; i < n; i += 512) sum += a[i];
        if (rank == 0) sum += c[5];
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < n; i++) bad += b[i] != 2 * (i + round) + 1;
        for (int i = 0; i < n; i++) bad += c[i] != i * round;
        b[0] = -1;
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    a[0] = b[1] = c[2] = 0;

    printf("rank %d: sum %ld\n", rank, sum);
    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return bad != 0;
}
