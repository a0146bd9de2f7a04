/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 9:
 * dependency cycle involving a call to mpi_probe.
 *
 * Each rank first probes for the message the other rank sends only after its
 * own probe and receive. MPI_Probe blocks until a matching message exists, so
 * both ranks wait for each other forever: an actual deadlock. Expected verdict:
 * DL001 at both MPI_Probe calls. Without mpicheck the program hangs (mpicheck
 * must end it).
 *
 * (The figure body is not in the seed text; reconstructed from its caption.)
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
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
        MPI_Probe(1, 1, MPI_COMM_WORLD, &st); /* expect: DL001 */
        MPI_Recv(b, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Probe(0, 2, MPI_COMM_WORLD, &st); /* expect: DL001 */
        MPI_Recv(b, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
