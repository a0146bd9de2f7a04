/*
 * A receive repeated in a loop blocks on its last turn: rank 1 receives one message more
 * than rank 0 sends, and rank 0 then waits for a reply that never comes. Both ranks block
 * in MPI_Recv: an actual deadlock. Rank 1's blocked call has the same function, call site
 * and arguments as its previous receives, so the trace holds it as a repeat record (trace
 * format 5): the live watcher must still see the rank blocked in it, and the analysis must
 * read it as the receive it repeats. Expected verdict: DL001 at both receives.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 100

int main(int argc, char **argv)
{
    int rank, size, v = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    if (rank == 0) {
        for (int i = 0; i < ROUNDS; i++) MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
    } else {
        for (int i = 0; i <= ROUNDS; i++)
            MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
        MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
