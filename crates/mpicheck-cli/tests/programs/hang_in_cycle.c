/* A deadlock inside a cycle of calls: rank 1 receives 100 messages, answering each (a cycle
 * of MPI_Recv and MPI_Send that trace format 7 counts in a cycle record), and blocks in a
 * 101st receive, counted in the same record with its pending bit; rank 0, after its 100
 * exchanges, waits for a message from rank 1 with another tag. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 100; i++) {
            MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Recv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < 101; i++) {
            MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* line 20 */
            if (i < 100) MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
