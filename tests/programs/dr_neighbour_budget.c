/*
 * Stores to other data on the page of pending receive buffers, many times per step, as Meep
 * makes them: each rank posts its halo receives (one MPI_Irecv call site) into a block whose
 * page also holds a counter it increments 100,000 times while they are pending, for 10
 * steps. Without a bound, --check-buffers lets each store through one instruction at a time
 * (two signals each: a minute of faults); with it, the site is given up after its budget of
 * such stores and the run stays quick, while buffers posted at other sites are still
 * watched: a load from a pending buffer posted by the second MPI_Irecv is reported. The note
 * that names the given-up site is checked by `neighbour_budget_*` in
 * crates/mpicheck-cli/tests/buffer_mechanisms.rs. The data must arrive intact.
 */
/* mpicheck: ranks=2 check-buffers timeout=40 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 10
#define STORES 100000
#define HALO 16
#define LATE 4096 /* 16 KiB: pages the buffer covers whole, which a load faults on */

struct block {
    volatile long counter; /* stored to while the receives beside it are pending */
    int halo[2][HALO];
};

int main(int argc, char **argv)
{
    int rank, bad = 0;
    volatile int sink = 0;
    static int out[2][HALO], late_out[LATE];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    /* 1 MiB each: their own mappings, away from the heap (where static TLS lives). */
    struct block *b = malloc(1 << 20);
    int *late = malloc(1 << 20);
    b->counter = 0;
    for (int step = 0; step < STEPS; step++) {
        MPI_Request reqs[4];
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < HALO; i++) out[k][i] = step * 1000 + rank * 100 + k * HALO + i;
            MPI_Irecv(b->halo[k], HALO, MPI_INT, peer, k, MPI_COMM_WORLD, &reqs[k]);
        }
        for (int i = 0; i < STORES; i++) b->counter++;
        for (int k = 0; k < 2; k++) MPI_Isend(out[k], HALO, MPI_INT, peer, k, MPI_COMM_WORLD, &reqs[2 + k]);
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < HALO; i++) bad += b->halo[k][i] != step * 1000 + peer * 100 + k * HALO + i;
    }

    for (int i = 0; i < LATE; i++) late_out[i] = rank * LATE + i;
    MPI_Request req;
    MPI_Irecv(late, LATE, MPI_INT, peer, 9, MPI_COMM_WORLD, &req);
    sink = ((volatile int *)late)[LATE / 2]; /* expect: DR002 */
    MPI_Send(late_out, LATE, MPI_INT, peer, 9, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < LATE; i++) bad += late[i] != peer * LATE + i;

    if (b->counter != (long)STEPS * STORES) bad++;
    if (bad) printf("rank %d: %d wrong values\n", rank, bad);
    free(b);
    free(late);
    MPI_Finalize();
    return bad != 0 || sink < 0;
}
