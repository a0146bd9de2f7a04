/*
 * MPI standard, "Correctness" of collective communication, third erroneous
 * example: a broadcast before a send on one rank, after the matching receive on
 * the other.
 *
 * Rank 0 broadcasts (root 0) then sends to rank 1; rank 1 receives from rank 0
 * then joins the broadcast. "This program may deadlock. The broadcast call on
 * process zero may block until process one executes the matching broadcast
 * call, so that the send is not executed." MPICH and Open MPI do not make the
 * root wait here, so the run completes. Expected verdict: DL002 (potential
 * deadlock: completes only because the collective did not synchronize) at rank
 * 0's MPI_Bcast and rank 1's MPI_Recv.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int buf1[4] = {0}, buf2[4] = {0}, buf3[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf1[0] = 10 + rank;
    buf2[0] = 20 + rank;
    buf3[0] = 30 + rank;
    switch (rank) {
    case 0:
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD); /* expect: DL002 */
        MPI_Send(buf2, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        break;
    case 1:
        MPI_Recv(buf2, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL002 */
        MPI_Bcast(buf1, 4, MPI_INT, 0, MPI_COMM_WORLD);
        break;
    }

    MPI_Finalize();
    return 0;
}
