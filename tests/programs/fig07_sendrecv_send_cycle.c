/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 7:
 * a dependency cycle involving mpi_sendrecv (potential-deadlock variant).
 *
 * Rank 0 first sends tag 5 with a standard MPI_Send; rank 1 receives tag 5 only
 * after its MPI_Sendrecv, whose receive half needs rank 0's MPI_Sendrecv. If the
 * MPI_Send were not buffered it would wait for rank 1, which waits for rank 0: a
 * cycle. The message is tiny, so MPICH and Open MPI buffer it and the run
 * completes. Expected verdict: DL002 at rank 0's MPI_Send and rank 1's
 * MPI_Sendrecv. Without mpicheck the program completes.
 *
 * (The figure body is not in the seed text; reconstructed from its caption.)
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    double a[4] = {1, 2, 3, 4}, b[4] = {0}, c[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    if (rank == 0) {
        MPI_Send(b, 4, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD); /* expect: DL002 */
        MPI_Sendrecv(a, 4, MPI_DOUBLE, 1, 1, c, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    } else {
        MPI_Sendrecv(a, 4, MPI_DOUBLE, 0, 1, c, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL002 */
        MPI_Recv(b, 4, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return 0;
}
