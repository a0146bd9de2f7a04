/*
 * A library keeps a private duplicate of MPI_COMM_WORLD and frees it, with its keyval, in
 * the delete callback of an attribute on MPI_COMM_SELF, which MPI_Finalize calls first
 * (MPI 4.1 §11.2.2: "this allows libraries to clean up"): nothing leaks.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stddef.h>

static MPI_Comm private_comm = MPI_COMM_NULL;
static int cleanup_key = MPI_KEYVAL_INVALID;

static int cleanup(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)value, (void)extra;
    MPI_Comm_free(&private_comm);
    MPI_Comm_free_keyval(&key);
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &private_comm);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cleanup, &cleanup_key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, cleanup_key, NULL);
    MPI_Comm_rank(private_comm, &rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, private_comm);
    MPI_Finalize();
    return 0;
}
