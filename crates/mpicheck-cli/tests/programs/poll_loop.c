/* Rank 0 polls a receive with MPI_Test until rank 1, after spinning on MPI_Wtime for argv[1]
 * seconds (default 0.5), sends: both loops must fold into a few records. Prints the polls
 * made. Also the program of benches/polling.sh (10 s). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, in = 0, out = 1, flag = 0;
    long polls = 0;
    double seconds = argc > 1 ? atof(argv[1]) : 0.5;
    MPI_Request request;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&in, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &request);
        while (!flag) {
            MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
            polls++;
        }
        printf("polls %ld\n", polls);
    } else {
        double start = MPI_Wtime();
        while (MPI_Wtime() - start < seconds)
            ;
        MPI_Send(&out, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
