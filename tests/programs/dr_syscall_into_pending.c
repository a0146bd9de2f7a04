/*
 * System calls of the program on the bytes of pending buffers (DR002), which the kernel
 * reaches without a fault: rank 0 read()s into its pending receive buffer, rank 1 write()s
 * out of its pending receive buffer (a load) and read()s into its pending send buffer (a
 * store). Each is reported at the call, as a store or load by an instruction would be, and
 * the calls still do their work (mpicheck must not make them fail).
 */
/* mpicheck: ranks=2 check-buffers */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096

int main(int argc, char **argv)
{
    int rank, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    int len = 4 * PAGE;
    char *rx = aligned_alloc(PAGE, len), *tx = aligned_alloc(PAGE, len);
    memset(tx, 'a' + rank, len);
    int p[2];
    if (pipe(p) != 0) return 2;
    fcntl(p[0], F_SETFL, O_NONBLOCK); /* a failed write must not leave a read waiting */
    char chunk[64];
    memset(chunk, 'p', sizeof chunk);
    MPI_Request reqs[2];
    MPI_Irecv(rx, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (write(p[1], chunk, sizeof chunk) != sizeof chunk) bad++;
        if (read(p[0], rx + PAGE, sizeof chunk) != sizeof chunk) bad++; /* expect: DR002 */
    } else {
        if (write(p[1], rx + PAGE, sizeof chunk) != sizeof chunk) bad++; /* expect: DR002 */
        if (read(p[0], chunk, sizeof chunk) != sizeof chunk) bad++;
    }
    MPI_Isend(tx, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[1]);
    if (rank == 1) {
        char keep[64];
        memcpy(keep, tx + 2 * PAGE, sizeof keep);
        if (write(p[1], keep, sizeof keep) != sizeof keep) bad++;
        if (read(p[0], tx + 2 * PAGE, sizeof keep) != sizeof keep) bad++; /* expect: DR002 */
    }
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    /* The message must be intact wherever rank 0's read did not store after it arrived. */
    for (int i = 0; i < len; i++)
        if (rx[i] != 'a' + peer && !(rank == 0 && i >= PAGE && i < PAGE + 64 && rx[i] == 'p')) {
            bad++;
            break;
        }
    if (bad) printf("rank %d: %d wrong\n", rank, bad);
    free(rx);
    free(tx);
    MPI_Finalize();
    return bad != 0;
}
