/*
 * Rank 0 takes a first result with MPI_ANY_SOURCE, replies to whoever sent it
 * (status.MPI_SOURCE), then expects the second result from rank 1 by name. Rank 1 sends
 * later than rank 2 (it sleeps first), so in this run the wildcard takes rank 2's result
 * and the program ends. Had rank 1's result come first, the wildcard would have taken it
 * and rank 0 would wait forever in MPI_Recv from rank 1: a real potential deadlock, whether
 * the reply goes to the source or to the rank it went to in this run (one reply is too few
 * to tell which the program does). Expected verdict: DL003 and MR001 at the wildcard
 * MPI_Recv.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Status st;
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); /* expect: DL003, MR001 */
        MPI_Send(&x, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else {
        if (rank == 1) usleep(300000);
        x = rank;
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
