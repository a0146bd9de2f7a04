/*
 * Small sends complete at once, and both MPIs then give every such request one shared
 * handle (MPICH 0x6c000001, Open MPI &ompi_request_empty). The waits below name the later
 * of two live requests with that handle, so the buffer of the earlier one is still
 * pending and the later one's is the program's again: the receives into `b` and `c` are
 * correct. (Named by handle value alone, the wait took the oldest request, and the
 * receive into `b` was reported as BF001.) The second half does the same through an
 * array: MPI_Waitall on entries 1 and 2 of r, entry 0 still pending.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a[4] = {0}, b[4] = {0}, c[4] = {0};
    MPI_Request r[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(a, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(b, 4, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        MPI_Irecv(b, 4, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[2]);
        MPI_Waitall(2, &r[0], MPI_STATUSES_IGNORE);
        MPI_Wait(&r[2], MPI_STATUS_IGNORE);

        MPI_Isend(a, 4, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(b, 4, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(c, 4, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[2]);
        MPI_Waitall(2, &r[1], MPI_STATUSES_IGNORE);
        MPI_Irecv(b, 4, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[1]);
        MPI_Irecv(c, 4, MPI_INT, 1, 8, MPI_COMM_WORLD, &r[2]);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    } else {
        MPI_Recv(a, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(b, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(b, 4, MPI_INT, 0, 3, MPI_COMM_WORLD);
        MPI_Recv(a, 4, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(b, 4, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(c, 4, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(b, 4, MPI_INT, 0, 7, MPI_COMM_WORLD);
        MPI_Send(c, 4, MPI_INT, 0, 8, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
