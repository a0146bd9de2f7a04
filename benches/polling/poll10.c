#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, in = 0, out = 1, flag = 0;
    long polls = 0;
    MPI_Request request;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&in, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &request);
        while (!flag) { MPI_Test(&request, &flag, MPI_STATUS_IGNORE); polls++; }
        printf("polls %ld\n", polls);
    } else {
        double t = MPI_Wtime();
        while (MPI_Wtime() - t < 10.0) ;
        MPI_Send(&out, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
