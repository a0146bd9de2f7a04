/*
 * MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 2:
 * dependency cycle with four processes, one send replaced by mpi_bsend.
 *
 * Ranks 1-3 synchronously send to their right neighbour, rank 0 uses a
 * buffered send; then every rank receives from its left neighbour. Rank 0's
 * MPI_Bsend completes locally, so rank 0 reaches its receive, which lets rank
 * 3's MPI_Ssend complete, and so on around the ring: the cycle is broken
 * ("mpi_bsend ... for at least one of the sends, then no deadlock will occur").
 * Expected verdict: none.
 */
/* mpicheck: ranks=4 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, left, right, bufsize;
    double out[4] = {1, 2, 3, 4}, in[4] = {0};
    void *attached;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    bufsize = (int)sizeof out + MPI_BSEND_OVERHEAD;
    attached = malloc((size_t)bufsize);
    MPI_Buffer_attach(attached, bufsize);

    if (rank == 0)
        MPI_Bsend(out, 4, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
    else
        MPI_Ssend(out, 4, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
    MPI_Recv(in, 4, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Buffer_detach(&attached, &bufsize);
    free(attached);
    MPI_Finalize();
    return 0;
}
