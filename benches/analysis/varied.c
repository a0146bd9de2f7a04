/*
 * A correct program of varied calls for the analysis's cost: ROUNDS rounds, each with
 * point-to-point exchanges under changing tags (blocking, nonblocking, wildcard receives),
 * collectives, and every tenth round a communicator and a datatype created and freed:
 * 9.7 calls per rank and round (argv[1] = ROUNDS), so the analysis's memory and time can
 * be compared at 1x, 10x and 100x calls.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int a[8] = {0}, b[8] = {0}, sum = 0;
    for (long i = 0; i < rounds; i++) {
        int tag = (int)(i % 1000);
        MPI_Request reqs[4];
        MPI_Status statuses[2];
        MPI_Irecv(b, 4, MPI_INT, left, tag, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(a, 4, MPI_INT, right, tag, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, statuses);
        MPI_Sendrecv(a, 2, MPI_INT, right, tag + 1, b, 2, MPI_INT, left, tag + 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(b, 1, MPI_INT, MPI_ANY_SOURCE, 5000, MPI_COMM_WORLD, &reqs[2]);
        MPI_Send(a, 1, MPI_INT, right, 5000, MPI_COMM_WORLD);
        MPI_Wait(&reqs[2], MPI_STATUS_IGNORE);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(a, 8, MPI_INT, (int)(i % size), MPI_COMM_WORLD);
        if (i % 10 == 0) {
            MPI_Comm half;
            MPI_Datatype pair;
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
            MPI_Type_contiguous(2, MPI_INT, &pair);
            MPI_Type_commit(&pair);
            MPI_Barrier(half);
            MPI_Allgather(a, 1, pair, b, 1, pair, half);
            MPI_Type_free(&pair);
            MPI_Comm_free(&half);
        }
    }
    if (rank == 0)
        printf("rounds %ld sum %d\n", rounds, sum);
    MPI_Finalize();
    return 0;
}
