/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), section
 * 2.4 next to Figure 9: "a single send can satisfy multiple calls to mpi_probe".
 *
 * Rank 0 sends one message; rank 1 probes for it twice (the second probe is
 * satisfied by the same pending message), sizes its buffer from the status and
 * receives it. Correct: a checker must not count the second probe as waiting
 * for a second message. Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, count = 0;
    double a[4] = {1, 2, 3, 4}, b[4] = {0};
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    if (rank == 0) {
        MPI_Send(a, 4, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    } else {
        MPI_Probe(0, 3, MPI_COMM_WORLD, &st);
        MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        MPI_Recv(b, count, MPI_DOUBLE, st.MPI_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return 0;
}
