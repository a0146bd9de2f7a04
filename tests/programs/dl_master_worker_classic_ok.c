/*
 * The master-worker of the MPI tutorials: the master hands out NTASKS tasks, each next one
 * to whichever worker returned a result (MPI_ANY_SOURCE, reply to status.MPI_SOURCE),
 * collects the last results, then sends every worker the stop tag; a worker loops
 * receiving with MPI_ANY_TAG until it gets the stop tag. Every order of the results
 * completes. In another matching a worker gets another number of tasks: where its trace
 * has the stop tag, the master's message would carry a task, and what it does then is not
 * in the trace; mpicheck must not report the replay of its trace past that point as a
 * potential deadlock. One worker may also take every task (the reply names one rank only).
 * Expected verdict: MR001 at the wildcard receives, and no potential deadlock (DL003).
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stddef.h>

#define NTASKS 8
#define WORKTAG 1
#define DIETAG 2

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int task = 0, result;
        MPI_Status st;
        for (int r = 1; r < size; r++, task++)
            MPI_Send(&task, 1, MPI_INT, r, WORKTAG, MPI_COMM_WORLD);
        for (; task < NTASKS; task++) {
            MPI_Recv(&result, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* expect: MR001 */
            MPI_Send(&task, 1, MPI_INT, st.MPI_SOURCE, WORKTAG, MPI_COMM_WORLD);
        }
        for (int r = 1; r < size; r++)
            MPI_Recv(&result, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        for (int r = 1; r < size; r++)
            MPI_Send(NULL, 0, MPI_INT, r, DIETAG, MPI_COMM_WORLD);
    } else {
        int task, result;
        MPI_Status st;
        for (;;) {
            MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == DIETAG)
                break;
            result = 2 * task;
            MPI_Send(&result, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
