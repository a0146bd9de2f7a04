/*
 * Twin of rq_isend_never_waited.c: the requests are completed by MPI_Test loops
 * (many calls return flag = 0 first), by MPI_Testall and by MPI_Waitany. A checker
 * that counted only MPI_Wait as completion would raise a false alarm here.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, idx, data[4] = {1, 2, 3, 4}, in[4], in2[4];
    MPI_Request req, reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD); /* the receiver tests for a while first */
        MPI_Isend(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        while (!flag) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        MPI_Send(data, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(data, 4, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(in, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE); /* no message yet: flag = 0 */
        MPI_Barrier(MPI_COMM_WORLD);
        while (!flag) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        MPI_Irecv(in, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(in2, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, &reqs[1]);
        flag = 0;
        MPI_Waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
        while (!flag) MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
