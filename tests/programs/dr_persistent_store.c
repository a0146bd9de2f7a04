/*
 * A store into the buffer of a started persistent send (DR002), and a load from the buffer
 * of a started persistent receive: between MPI_Start(all) and the wait, MPI may read the
 * send buffer and write the receive buffer, as for MPI_Isend/MPI_Irecv. The accesses in
 * the second round are found; those between the rounds, while the requests are inactive,
 * are allowed and not reported.
 */
/* mpicheck: ranks=2 check-buffers */
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
    int peer = 1 - rank;
    int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));
    MPI_Send_init(out, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(in, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[1]);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < n; i++) out[i] = rank * n + i + round; /* inactive: allowed */
        if (rank == 0) {
            MPI_Start(&reqs[0]);
            MPI_Start(&reqs[1]);
        } else {
            MPI_Startall(2, reqs);
        }
        if (round == 1 && rank == 0) out[0]++;           /* expect: DR002 */
        if (round == 1 && rank == 1) sink = in[n / 2];    /* expect: DR002 */
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        for (int i = 1; i < n; i++) bad += in[i] != peer * n + i + round;
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    if (bad) printf("rank %d: %d wrong elements\n", rank, bad);
    free(out);
    free(in);
    MPI_Finalize();
    return bad != 0 || sink < 0;
}
