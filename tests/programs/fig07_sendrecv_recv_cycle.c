/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 7:
 * a dependency cycle involving mpi_sendrecv (actual-deadlock variant).
 *
 * Rank 0 first waits in MPI_Recv for tag 5, which rank 1 sends only after its
 * MPI_Sendrecv; rank 1's MPI_Sendrecv in turn needs the tag-1 message that rank
 * 0 sends only in its own MPI_Sendrecv, after the MPI_Recv. The receive half of
 * rank 1's MPI_Sendrecv can never complete, whatever the buffering: an actual
 * deadlock. Expected verdict: DL001 at rank 0's MPI_Recv and rank 1's
 * MPI_Sendrecv. Without mpicheck the program hangs (mpicheck must end it).
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
        MPI_Recv(b, 4, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
        MPI_Sendrecv(a, 4, MPI_DOUBLE, 1, 1, c, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    } else {
        MPI_Sendrecv(a, 4, MPI_DOUBLE, 0, 1, c, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
        MPI_Send(b, 4, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
