/*
 * Correct uses of persistent requests under --check-buffers: the buffers are used freely
 * while the requests are inactive (before the first start, between a completion and the
 * next start, after MPI_Request_free), completion by MPI_Wait, MPI_Test loops, MPI_Waitany
 * and MPI_Waitsome (the requests keep their handles), reads of a started send buffer, and
 * 1 MiB messages that must arrive intact. A request freed while active is no longer
 * watched: its buffer is reused once the peer says the message arrived.
 */
/* mpicheck: ranks=2 check-buffers */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 1 << 18, bad = 0;
    long sum = 0;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));
    MPI_Send_init(out, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(in, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[1]);
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < n; i++) out[i] = rank * n + i + round;
        in[0] = -1;
        MPI_Startall(2, reqs);
        for (int i = 0; i < n; i += 512) sum += out[i]; /* reading a started send buffer */
        if (round == 0) {
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
            out[0] = 0; /* the send completed */
            MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        } else if (round == 1) {
            int flag = 0;
            while (!flag) MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE);
        } else if (round == 2) {
            int index, done = 0;
            while (done < 2) {
                MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE);
                if (index == 0) out[1] = 0; /* this one completed */
                done++;
            }
        } else {
            int outcount, indices[2], done = 0;
            while (done < 2) {
                MPI_Waitsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
                done += outcount;
            }
        }
        for (int i = 2; i < n; i++) bad += in[i] != peer * n + i + round;
        in[0] = 0; /* the receive completed */
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    out[0] = in[0] = 1;

    /* A persistent send freed while active: its end is known from the peer's reply. */
    int ack = 0, got = 0;
    MPI_Request req;
    if (rank == 0) {
        MPI_Ssend_init(&out[8], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
        out[8] = 42;
        MPI_Start(&req);
        MPI_Request_free(&req);
        MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        out[8] = 0;
        bad += ack != 42;
    } else {
        MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&got, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    printf("rank %d: sum %ld\n", rank, sum);
    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    free(out);
    free(in);
    MPI_Finalize();
    return bad != 0;
}
