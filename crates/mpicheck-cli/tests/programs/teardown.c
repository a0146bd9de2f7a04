/* Rank 0 prints two lines and a partial one, then every rank sends a large message before
 * receiving: a deadlock that mpicheck ends. The user must get the program's output byte
 * for byte, and none of the launcher's teardown messages. */
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
    if (rank == 0) {
        printf("line one\nline two\npartial");
        fflush(stdout);
    }
    double *out = calloc(N, sizeof(double)), *in = calloc(N, sizeof(double));
    MPI_Send(out, N, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Recv(in, N, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
