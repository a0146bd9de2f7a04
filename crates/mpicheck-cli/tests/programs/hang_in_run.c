/* A deadlock inside a run of identical calls: rank 1 receives 100 identical messages with
 * identical MPI_Recv calls (trace format 6 counts them in one record) and blocks in a 101st,
 * folded into the same record with its pending bit; rank 0, after its 100 identical sends,
 * waits for a message from rank 1. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 100; i++)
            MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < 101; i++)
            MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* line 18 */
    }
    MPI_Finalize();
    return 0;
}
