/* A cycle of calls, counted in a cycle record (trace format 7), when a rank dies in the
 * middle of one. Rank 0 sends 1000 messages to rank 1, each answered, then waits for a
 * message that never comes. Rank 1 receives each and answers it (a cycle of MPI_Recv and
 * MPI_Send), then blocks in a 1001st identical MPI_Recv, counted in the cycle, and is ended
 * by SIGALRM while inside it. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, v = 42;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 1000; i++) {
            MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Recv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Status st;
        for (int i = 0; i < 1000; i++) {
            MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
            MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        }
        alarm(2);
        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
    }
    MPI_Finalize();
    return 0;
}
