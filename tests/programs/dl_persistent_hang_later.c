/*
 * A persistent send whose first instance completed in the run, and a hang later. Rank 0
 * starts its persistent send once (one int: MPI buffers it, the wait returns) and enters a
 * barrier that rank 1 passes before receiving that message; then it posts a receive, starts
 * the send again and waits for both, but rank 1 never sends tag 5: after the second
 * instance it waits for tag 7, which rank 0 never sends. The actual deadlock: rank 0 in its
 * MPI_Waitall, rank 1 in its last MPI_Recv. mpicheck replayed every start of a persistent
 * request as unbuffered once one of its waits never returned, so the first wait blocked
 * before the barrier, and the deadlock it reported was not the run's.
 * Expected verdict: DL001 at the MPI_Waitall and the last MPI_Recv.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    MPI_Request requests[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &requests[0]);
        MPI_Start(&requests[0]);
        MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Irecv(&y, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &requests[1]);
        MPI_Start(&requests[0]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE); /* expect: DL001 */
        MPI_Request_free(&requests[0]);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
    }
    MPI_Finalize();
    return 0;
}
