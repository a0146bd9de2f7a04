/*
 * A request array that spans several pages (2,000 entries, the real requests at the end):
 * the recorder checks such arrays readable page by page before copying them, and must
 * still record them whole, or the requests would look never completed (RQ001).
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

#define N 2000

int main(int argc, char **argv)
{
    static MPI_Request reqs[N];
    int rank, out, in;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i++) reqs[i] = MPI_REQUEST_NULL;
    out = rank;
    MPI_Irecv(&in, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &reqs[N - 2]);
    MPI_Isend(&out, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &reqs[N - 1]);
    MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
