/* Rank 1 makes 1000 recorded calls and is killed with SIGKILL; its trace must hold every
 * one of them. Rank 0 waits in a receive that never completes until the job is ended. */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        for (int i = 0; i < 1000; i++)
            MPI_Send(&i, 1, MPI_INT, MPI_PROC_NULL, i, MPI_COMM_WORLD);
        kill(getpid(), SIGKILL);
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
