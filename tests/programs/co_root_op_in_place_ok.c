/*
 * Correct twin of co_root_op_in_place.c: the same operation everywhere (a user-defined one
 * created alike on every rank), MPI_IN_PLACE on all ranks of the allreduce and only at the
 * root of the gather and reduce. Expected verdict: no finding.
 */
/* mpicheck: ranks=4 */
/* expect: none */
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
    MPI_Allreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(x, y, 4, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Gather(rank == 0 ? MPI_IN_PLACE : x, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : x, y, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
