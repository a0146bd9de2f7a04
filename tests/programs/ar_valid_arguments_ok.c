/*
 * Twin of the ar_*.c programs: arguments at the edges of what is valid, none of which
 * may be reported: MPI_PROC_NULL peers, MPI_ANY_SOURCE/MPI_ANY_TAG receives, the
 * largest tag (MPI_TAG_UB), NULL buffers with count 0, MPI_IN_PLACE in an allreduce,
 * at the root of a gather and in an allgather (whose send count and type are then
 * ignored: -1 and MPI_DATATYPE_NULL), MPI_DATATYPE_NULL and NULL where only the root's
 * arguments matter, an MPI_UNDEFINED split whose MPI_COMM_NULL is tested before use,
 * a committed derived type, MPI_Initialized before MPI_Init and MPI_Finalized after
 * MPI_Finalize.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size, flag, *tag_ub, data[4] = {1, 2, 3, 4}, all[8];
    MPI_Comm sub;
    MPI_Datatype pair;

    MPI_Initialized(&flag);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    int peer = 1 - rank;
    MPI_Sendrecv(data, 4, MPI_INT, MPI_PROC_NULL, 0, all, 4, MPI_INT, MPI_PROC_NULL, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) {
        MPI_Send(data, 4, MPI_INT, peer, *tag_ub, MPI_COMM_WORLD);
        MPI_Send(NULL, 0, MPI_INT, peer, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(data, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(NULL, 0, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(MPI_IN_PLACE, data, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    all[4 * rank] = rank;
    MPI_Allgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, 4, MPI_INT, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Gather(MPI_IN_PLACE, 4, MPI_INT, all, 4, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Gather(data, 4, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub != MPI_COMM_NULL) {
        MPI_Barrier(sub);
        MPI_Comm_free(&sub);
    }
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    if (rank == 0)
        MPI_Send(data, 2, pair, 1, 5, MPI_COMM_WORLD);
    else
        MPI_Recv(data, 2, pair, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&pair);
    MPI_Finalize();
    MPI_Finalized(&flag);
    return 0;
}
