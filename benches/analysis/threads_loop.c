/*
 * A long threaded run for the cost of the thread checks (BENCHMARKS.md, "The thread checks
 * TH003/TH005 as a pass"): MPI_THREAD_MULTIPLE, an OpenMP team of 2 threads per rank, each
 * thread exchanging with the same thread of the other rank (its own tag) and reducing on
 * its own communicator every round, an OpenMP barrier between rounds. 5 MPI calls per
 * thread and round: ROUNDS rounds make 10 * ROUNDS calls per rank. Correct: no finding.
 *
 *   mpicc -O2 -fopenmp -o threads_loop threads_loop.c && mpiexec -n 2 ./threads_loop 10000
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 1000;
    int peer = (rank + 1) % size;
    int from = (rank + size - 1) % size;
    MPI_Comm comms[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    long total = 0;
    #pragma omp parallel num_threads(2) reduction(+ : total)
    {
        int t = omp_get_thread_num();
        for (int i = 0; i < rounds; i++) {
            int out = i + t, in = -1, sum = 0;
            MPI_Request reqs[2];
            MPI_Irecv(&in, 1, MPI_INT, from, t, MPI_COMM_WORLD, &reqs[0]);
            MPI_Isend(&out, 1, MPI_INT, peer, t, MPI_COMM_WORLD, &reqs[1]);
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
            MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
            MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, comms[t]);
            total += sum;
            #pragma omp barrier
        }
    }
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    if (rank == 0)
        printf("total %ld\n", total);
    MPI_Finalize();
    return 0;
}
