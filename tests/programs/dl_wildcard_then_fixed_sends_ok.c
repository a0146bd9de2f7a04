/*
 * Rank 0 takes three workers' results with MPI_ANY_SOURCE and, after the first and the
 * third, sends a bucket to a fixed rank (1, then 3), as hpcc's RandomAccess sends each
 * bucket to the rank its updates hash to. The workers send at staggered times, so the
 * results usually arrive from ranks 1, 2, 3 in that order: each bucket then goes, by
 * coincidence, to the rank whose result came last. That is no reply to
 * status.MPI_SOURCE: in another matching the buckets still go to ranks 1 and 3, and every
 * matching completes (the workers' sends are nonblocking). Two calls are too few to take
 * the line for one that follows the wildcard's source; a replay that sent the buckets to
 * the sources taken would leave rank 1 or 3 waiting forever (a false DL003).
 * Expected verdict: MR001 at the wildcard MPI_Recv, and no potential deadlock.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, result = 0, bucket[4] = {0};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 1; i <= 3; i++) {
            MPI_Recv(&result, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, /* expect: MR001 */
                     MPI_STATUS_IGNORE);
            if (i != 2) /* buckets for ranks 1 and 3 */
                MPI_Send(bucket, 4, MPI_INT, i, 1, MPI_COMM_WORLD);
        }
    } else {
        usleep(300000 * (rank - 1)); /* results arrive from ranks 1, 2, 3 in turn */
        result = rank;
        MPI_Isend(&result, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        if (rank != 2)
            MPI_Recv(bucket, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
