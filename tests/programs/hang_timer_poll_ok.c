/*
 * A polling loop that ends on a timer, as the genome assembler Ray's does between phases:
 * both ranks poll with MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) and read the clock at every
 * turn; rank 0 waits 6 s by the clock (longer than the deadlock timeout, 3 s in the test
 * harness) before it sends rank 1 the message that ends both loops. Nothing else happens
 * in MPI meanwhile, yet it is no deadlock: rank 0's loop ends by time. mpicheck used to end
 * the job and report DL001 here (Ray under mpicheck was ended the same way).
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stddef.h>
#include <sys/time.h>

static double seconds_now(void)
{
    struct timeval t;
    gettimeofday(&t, NULL);
    return t.tv_sec + 1e-6 * t.tv_usec;
}

int main(int argc, char **argv)
{
    int rank, flag, value = 42, done = 0;
    MPI_Status status;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double start = seconds_now();
    while (!done) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        if (flag) {
            MPI_Recv(&value, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            done = 1;
        }
        if (rank == 0 && seconds_now() - start > 6.0) {
            MPI_Send(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
            done = 1;
        }
    }
    MPI_Finalize();
    return 0;
}
