/*
 * A master-worker loop for the cost of DL003's wildcard exploration: ROUNDS rounds
 * (argv[1]), in each rank 0 takes one message from every worker with MPI_ANY_SOURCE (a
 * race every time, harmless: any order completes), and every EVERY rounds (argv[2],
 * default 100; 0: never) all ranks meet in a barrier.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    long every = argc > 2 ? atol(argv[2]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (long i = 0; i < rounds; i++) {
        int x = (int)i;
        if (rank == 0) {
            for (int k = 1; k < size; k++)
                MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
        if (every > 0 && i % every == every - 1)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
