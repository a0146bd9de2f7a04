/*
 * Accesses to the buffers of started persistent collectives (MPI 4, DR002): a store into
 * the send buffer of an active MPI_Allreduce_init request and a load from its receive
 * buffer (each start watches them again), a store into a non-root's MPI_Bcast_init
 * buffer. Results must stay right. (Open MPI 4.1 has these only as MPIX_ functions.)
 */
/* mpicheck: ranks=2 check-buffers mpi=mpich */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 14, bad = 0;
    volatile int sink = 0;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int)), *c = malloc(n * sizeof(int));
    MPI_Allreduce_init(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
    MPI_Bcast_init(c, n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);

    for (int i = 0; i < n; i++) a[i] = rank + i;
    MPI_Start(&reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += b[i] != 2 * i + 1;

    MPI_Start(&reqs[0]);
    a[n / 2] = 0; /* expect: DR002 */
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Start(&reqs[0]);
    sink = ((volatile int *)b)[n / 2]; /* expect: DR002 keys */
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);

    for (int i = 0; i < n; i++) c[i] = rank == 0 ? i : -1;
    MPI_Start(&reqs[1]);
    if (rank == 1) c[3] = 3; /* expect: DR002 */
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += i != 3 && c[i] != i;

    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return bad != 0 || sink == -5;
}
