/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 5:
 * a cycle with mpi_bsend involved.
 *
 * Rank 0 does a buffered send to rank 1 and then receives from rank 1; rank 1
 * does a synchronous send to rank 0 and then receives from rank 0. It looks
 * like the figure 1 cycle, but MPI_Bsend completes locally, so rank 0 posts its
 * receive, rank 1's MPI_Ssend completes and rank 1 receives the buffered
 * message. The paper stresses that this must NOT be reported as an actual or
 * potential deadlock. Expected verdict: none.
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

    if (rank == 0) {
        bufsize = (int)sizeof a + MPI_BSEND_OVERHEAD;
        attached = malloc((size_t)bufsize);
        MPI_Buffer_attach(attached, bufsize);
        MPI_Bsend(a, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Buffer_detach(&attached, &bufsize);
        free(attached);
    } else {
        MPI_Ssend(b, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        MPI_Recv(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return 0;
}
