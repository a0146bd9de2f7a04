/* N rounds of a ring exchange and an allreduce, then a head-to-head blocking receive:
 * a hang after many calls. */
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int rank, size, v = 1, w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (long i = 0; i < n; i++) {
        MPI_Sendrecv(&v, 1, MPI_INT, right, (int)(i % 7), &w, 1, MPI_INT, left, (int)(i % 7),
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&w, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        v = (int)(i & 0xff);
    }
    MPI_Recv(&w, 1, MPI_INT, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, right, 99, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
