/* A 1-D halo exchange that hangs: every rank sends its boundary to the right neighbour
 * before receiving from the left one. Small messages get through because the MPI library
 * buffers them; this boundary is large, so every MPI_Send waits for a receive that is never
 * posted, and the whole job hangs.
 *
 *   mpicc -g -o halo_deadlock halo_deadlock.c
 *   mpicheck run -n 4 ./halo_deadlock
 *
 * Fix: MPI_Sendrecv(out, N, MPI_DOUBLE, right, 0, in, N, MPI_DOUBLE, left, 0, ...), or
 * MPI_Irecv before the send and MPI_Wait after it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* 8 MiB of doubles: far above any eager limit */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *out = malloc(N * sizeof(double));
    double *in = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++)
        out[i] = rank;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Send(out, N, MPI_DOUBLE, right, 0, MPI_COMM_WORLD);
    MPI_Recv(in, N, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    printf("rank %d received the halo of rank %d\n", rank, (int)in[0]);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
