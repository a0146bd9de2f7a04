/*
 * Correct twin of ty_collectives_mismatch.c: the same collectives, with equal type
 * signatures built differently on rank 3 (a contiguous type of 4 MPI_INT, a vector of
 * 2 x 2 MPI_INT, MPI_2INT pairs), per-rank counts that agree, MPI_IN_PLACE on all ranks.
 * Expected verdict: no finding.
 */
/* mpicheck: ranks=4 */
/* expect: none */
#include <mpi.h>

#define N 4

int main(int argc, char **argv)
{
    int rank, size;
    int a[4 * N] = {0}, b[4 * N] = {0};
    int counts[4], displs[4], rcounts[4];
    MPI_Datatype types[4], rtypes[4], contig4, vec22;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(4, MPI_INT, &contig4);
    MPI_Type_commit(&contig4);
    MPI_Type_vector(2, 2, 2, MPI_INT, &vec22);
    MPI_Type_commit(&vec22);
    for (int i = 0; i < 4; i++) {
        counts[i] = 1;
        displs[i] = i;
        rcounts[i] = 1;
        types[i] = MPI_INT;
        rtypes[i] = MPI_INT;
    }
    if (rank == 3)
        MPI_Bcast(a, 1, contig4, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(a, N, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(a, b, N, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, 2, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(a, b, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Exscan(a, b, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Reduce_scatter(a, b, rcounts, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Gather(a, 4, MPI_INT, b, 1, vec22, 0, MPI_COMM_WORLD);
    else
        MPI_Gather(a, 1, contig4, b, 1, vec22, 0, MPI_COMM_WORLD);
    MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(a, 1, MPI_INT, b, rcounts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallw(a, counts, displs, types, b, counts, displs, rtypes, MPI_COMM_WORLD);
    if (rank == 0) rcounts[2] = 2;
    for (int i = 0; i < 4; i++) displs[i] = 2 * i;
    MPI_Gatherv(a, rank == 2 ? 2 : 1, MPI_INT, b, rcounts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatterv(a, rcounts, displs, MPI_INT, b, rank == 2 ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Ibcast(a, N, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Iallreduce(a, b, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Type_free(&contig4);
    MPI_Type_free(&vec22);
    MPI_Finalize();
    return 0;
}
