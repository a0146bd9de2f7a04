/*
 * A work loop that checks for messages now and then: both ranks poll with
 * MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) at every turn of their loop; rank 0 also works
 * between its polls (a fixed amount of work, several seconds in all: longer than the
 * deadlock timeout, 3 s in the test harness), before it sends rank 1 the message that ends
 * both loops. Not a deadlock: rank 0 is busy outside MPI, not waiting. mpicheck used to end
 * the job and report DL001 here, since neither rank's polls found anything for the timeout.
 * The work takes a few seconds on a quiet machine and up to a minute on a loaded 2-core one
 * (rank 1's polling loop competes for the cores): hence the longer run timeout.
 */
/* mpicheck: ranks=2 timeout=240 */
/* expect: none */
#include <mpi.h>

/* Some hundreds of microseconds of work, invisible to MPI (and reading no clock). */
static void work_a_little(void)
{
    volatile double x = 0;
    for (int i = 0; i < 200000; i++)
        x += i * 0.5;
}

int main(int argc, char **argv)
{
    int rank, flag, value = 42, done = 0, turns = 0;
    MPI_Status status;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (!done) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        if (flag) {
            MPI_Recv(&value, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            done = 1;
        }
        if (rank == 0) {
            if (++turns < 8000) {
                work_a_little();
            } else {
                MPI_Send(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
                done = 1;
            }
        }
    }
    MPI_Finalize();
    return 0;
}
