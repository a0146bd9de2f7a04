/*
 * Correct uses of buffers around nonblocking calls, under --check-buffers: reads of a
 * pending send buffer (MPI allows them), neighbours of pending buffers on the same page,
 * output and stack work while receives are pending, stores after the wait, completion by
 * MPI_Waitall and by MPI_Testsome loops, and 1 MiB messages that must arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct halves {
    int mine[16];
    int theirs[16]; /* on the same page as `mine` */
};

int main(int argc, char **argv)
{
    int rank, n = 1 << 18, bad = 0;
    long sum = 0;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    struct halves *h = calloc(1, sizeof *h);
    int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) out[i] = rank * n + i;

    /* Reading the pending send buffer, writing its neighbour, printing. */
    MPI_Isend(out, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(in, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[1]);
    for (int i = 0; i < n; i++) sum += out[i];
    printf("rank %d: sum %ld\n", rank, sum);
    fflush(stdout);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++) bad += in[i] != peer * n + i;
    out[0] = -1; /* after the wait */
    in[0] = -1;

    /* A small receive next to data the program keeps using, completed by a test loop. */
    MPI_Irecv(h->mine, 16, MPI_INT, peer, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&rank, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &reqs[1]);
    int local[64];
    for (int i = 0; i < 64; i++) local[i] = i;
    for (int i = 0; i < 16; i++) h->theirs[i] = local[i] + local[63 - i];
    int other = 0, done = 0, outcount, indices[2];
    MPI_Send(h->theirs, 16, MPI_INT, peer, 1, MPI_COMM_WORLD);
    MPI_Recv(&other, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    while (done < 2) {
        MPI_Testsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED) done += outcount;
    }
    for (int i = 0; i < 16; i++) bad += h->mine[i] != 63;
    h->mine[0] = 0; /* after completion */
    bad += other != peer;

    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    free(h);
    free(in);
    free(out);
    MPI_Finalize();
    return bad != 0;
}
