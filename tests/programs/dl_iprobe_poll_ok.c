/*
 * A rank takes an urgent message first if it is already there (MPI_Iprobe, then
 * MPI_Recv of what it found), and after the others otherwise. Here it was there: the
 * probe and its receive waited for nothing. Without buffering, rank 1 would still be in
 * its first send, the probe would find nothing and rank 0 would receive in send order:
 * no potential deadlock.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, any, first[4] = {0}, urgent[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Send(first, 4, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(urgent, 4, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else {
        usleep(200000); /* both messages arrive in the meantime */
        MPI_Iprobe(1, 1, MPI_COMM_WORLD, &any, MPI_STATUS_IGNORE); /* what is there? */
        MPI_Iprobe(1, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag)
            MPI_Recv(urgent, 4, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(first, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!flag)
            MPI_Recv(urgent, 4, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
