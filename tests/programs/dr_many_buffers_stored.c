/*
 * One store into each of 100 buffers of pending MPI_Irecv calls (DR002), one after the
 * other: more than the recorder's table of unflushed findings holds (64), but each is
 * flushed at the next MPI call, so every access is recorded and the one finding of that
 * instruction counts the 99 other buffers. The data must still arrive intact.
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 100
#define N 1024

int main(int argc, char **argv)
{
    int rank, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    /* All allocated first: 100 buffers at 100 addresses. */
    int *in[ROUNDS], out[N];
    for (int r = 0; r < ROUNDS; r++) in[r] = malloc(N * sizeof(int));
    for (int r = 0; r < ROUNDS; r++) {
        MPI_Request req;
        for (int i = 0; i < N; i++) out[i] = rank * N + i + r;
        MPI_Irecv(in[r], N, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
        if (rank == 0)
            ((volatile int *)in[r])[0] = 7; /* expect: DR002 */
        MPI_Send(out, N, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) bad += in[r][i] != peer * N + i + r;
    }
    for (int r = 0; r < ROUNDS; r++) free(in[r]);
    if (bad) printf("rank %d: %d wrong elements\n", rank, bad);
    MPI_Finalize();
    return bad != 0;
}
