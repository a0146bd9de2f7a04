/*
 * Twin of dl_testall_poll_ok.c: here rank 0 polls with MPI_Testall until its send is
 * done, which is waiting for it, and rank 1 receives that message only after its own
 * standard send to rank 0, which rank 0 receives only after the loop. The run completes
 * only because MPI buffered rank 1's small send (DL002).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#define BIG (1 << 20)

int main(int argc, char **argv)
{
    int rank, flag = 0, small[4] = {0};
    int *big = calloc(BIG, sizeof(int));
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(big, BIG, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        while (!flag)
            MPI_Testall(1, &req, &flag, MPI_STATUSES_IGNORE); /* expect: DL002 */
        MPI_Recv(small, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(small, 4, MPI_INT, 0, 1, MPI_COMM_WORLD); /* expect: DL002 */
        usleep(100000); /* rank 0 polls a while */
        MPI_Recv(big, BIG, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    free(big);
    return 0;
}
