/*
 * Relay: ranks 1 and 2 each send five messages to rank 0, tagged with their rank; rank 0
 * takes them with MPI_ANY_SOURCE and MPI_ANY_TAG and forwards each to rank 3 with its tag
 * (status.MPI_TAG), synchronously. Rank 3 takes the five messages of tag 1, then the five
 * of tag 2. Rank 2 sends later (it sleeps first), so in this run every message of tag 1
 * comes first and the program ends. Had a message of rank 2 come before the last one of
 * rank 1, rank 0 would forward it with tag 2 and wait in MPI_Ssend for rank 3, which waits
 * for a message of tag 1 from rank 0: a real potential deadlock, seen only by forwarding
 * the message the wildcard takes with that message's tag. Expected verdict: DL003 and
 * MR001 at the wildcard MPI_Recv.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>
#include <unistd.h>

#define COUNT 5

int main(int argc, char **argv)
{
    int rank, x = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 2 * COUNT; i++) {
            MPI_Status st;
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* expect: DL003, MR001 */
            MPI_Ssend(&x, 1, MPI_INT, 3, st.MPI_TAG, MPI_COMM_WORLD);
        }
    } else if (rank == 3) {
        for (int tag = 1; tag <= 2; tag++)
            for (int i = 0; i < COUNT; i++)
                MPI_Recv(&x, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        if (rank == 2) usleep(300000);
        for (int i = 0; i < COUNT; i++) {
            x = rank * 1000 + i;
            MPI_Send(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
