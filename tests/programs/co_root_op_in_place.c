/*
 * Collective argument mismatches that neither MPI detects: an allreduce with a different
 * predefined operation on rank 0, an allreduce with a user-defined operation on some ranks
 * only, an allreduce with MPI_IN_PLACE on some ranks only (MPICH hangs in it; the watch ends
 * the job). Expected verdict: CO003, CO003, CO004 at the calls.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

static void my_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        if (a[i] > b[i]) b[i] = a[i];
    (void)type;
}

int main(int argc, char **argv)
{
    int rank, x[4] = {1, 2, 3, 4}, y[4] = {0}, all[16];
    MPI_Op op;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op_create(my_max, 1, &op);
    MPI_Allreduce(x, y, 4, MPI_INT, rank == 0 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD); /* expect: CO003 */
    MPI_Allreduce(x, y, 4, MPI_INT, rank < 2 ? op : MPI_MAX, MPI_COMM_WORLD); /* expect: CO003 */
    if (rank == 1)
        MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: CO004 */
    else
        MPI_Allreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: CO004 */
    MPI_Gather(rank == 0 ? MPI_IN_PLACE : x, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
