/*
 * Type signature mismatches in every data-moving collective of MPI-1/2 and in MPI-3
 * nonblocking ones: rank 3 describes its data as MPI_FLOAT where the others use MPI_INT
 * (same size, so neither MPI notices and the run completes), or gets the per-rank counts
 * of a v-variant wrong. Expected verdict: TY001 at each call.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

#define N 4

int main(int argc, char **argv)
{
    int rank, size;
    int a[4 * N] = {0}, b[4 * N] = {0};
    int counts[4], displs[4], rcounts[4];
    MPI_Datatype types[4], rtypes[4];
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t = rank == 3 ? MPI_FLOAT : MPI_INT;
    for (int i = 0; i < 4; i++) {
        counts[i] = 1;
        displs[i] = i;
        rcounts[i] = 1;
        types[i] = MPI_INT;
        rtypes[i] = MPI_INT;
    }
    MPI_Bcast(a, N, t, 0, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Reduce(a, b, N, t, MPI_MAX, 0, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Allreduce(a, b, N, t, MPI_MAX, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Scan(a, b, N, t, MPI_MAX, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Exscan(a, b, N, t, MPI_MAX, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Reduce_scatter_block(a, b, 1, t, MPI_MAX, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Reduce_scatter(a, b, rcounts, t, MPI_MAX, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Gather(a, 1, t, b, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Scatter(a, 1, MPI_INT, b, 1, t, 0, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Allgather(a, 1, t, b, 1, t, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Alltoall(a, 1, t, b, 1, t, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Allgatherv(a, 1, t, b, rcounts, displs, t, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Alltoallv(a, counts, displs, t, b, counts, displs, t, MPI_COMM_WORLD); /* expect: TY001 */
    if (rank == 3) types[0] = MPI_FLOAT;
    MPI_Alltoallw(a, counts, displs, types, b, counts, displs, rtypes, MPI_COMM_WORLD); /* expect: TY001 */
    /* v-variants: the root expects 2 ints from rank 2, which sends 1; then rank 2 expects 2
     * ints from the root, which sends 1 (receiving less than expected is not detected by
     * either MPI). */
    if (rank == 0) rcounts[2] = 2;
    for (int i = 0; i < 4; i++) displs[i] = 2 * i;
    MPI_Gatherv(a, 1, MPI_INT, b, rcounts, displs, MPI_INT, 0, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Scatterv(a, counts, displs, MPI_INT, b, rank == 2 ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect: TY001 */
    /* MPI-3 nonblocking collectives. */
    MPI_Ibcast(a, N, t, 0, MPI_COMM_WORLD, &req); /* expect: TY001 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Iallreduce(a, b, N, t, MPI_MAX, MPI_COMM_WORLD, &req); /* expect: TY001 */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
