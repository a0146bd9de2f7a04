/*
 * A program that makes an RMA window and then mostly sends messages, for the analysis's
 * memory on window programs (BENCHMARKS.md, "RMA programs without the run's events"):
 * ROUNDS rounds (argv[1], default 1000) of a ring exchange, an allreduce, and a fence epoch
 * with one put into the right neighbour's window.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *memory = calloc(16, sizeof(int));
    MPI_Win win;
    MPI_Win_create(memory, 16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int r = 0; r < rounds; r++) {
        int out = r, in = 0, sum = 0;
        MPI_Sendrecv(&out, 1, MPI_INT, right, r % 7, &in, 1, MPI_INT, left, r % 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Win_fence(0, win);
        MPI_Put(&out, 1, MPI_INT, right, r % 16, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
    }
    MPI_Win_free(&win);
    free(memory);
    MPI_Finalize();
    return 0;
}
