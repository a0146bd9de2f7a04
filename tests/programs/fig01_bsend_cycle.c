/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 1:
 * dependency cycle with two processes, mpi_bsend variant.
 *
 * Same send-then-receive pattern as figure 1, but both sends are buffered sends
 * into a buffer attached by the program. MPI_Bsend completes locally whatever
 * the receiver does, so no deadlock is possible with any implementation
 * ("if one uses mpi_bsend ... for at least one of the sends, then no deadlock
 * will occur and the usage is correct"). Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, bufsize;
    double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    void *attached;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bufsize = (int)sizeof a + MPI_BSEND_OVERHEAD;
    attached = malloc((size_t)bufsize);
    MPI_Buffer_attach(attached, bufsize);

    if (rank == 0) {
        MPI_Bsend(a, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Bsend(b, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        MPI_Recv(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Buffer_detach(&attached, &bufsize);
    free(attached);
    MPI_Finalize();
    return 0;
}
