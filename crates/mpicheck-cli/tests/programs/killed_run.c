/* Runs of identical calls, counted in one record each (trace format 6), when a rank dies in
 * the middle of one. Rank 0 sends 1000 identical messages to rank 1, then waits for a reply
 * that never comes. Rank 1 receives them with 1000 identical MPI_Recv calls, then blocks in a
 * 1001st identical one, and is ended by SIGALRM while inside it. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, v = 42;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 1000; i++)
            MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Status st;
        for (int i = 0; i < 1000; i++)
            MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
        alarm(2);
        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
    }
    MPI_Finalize();
    return 0;
}
