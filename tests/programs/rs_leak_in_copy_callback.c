/*
 * The program's attribute copy function, which MPI runs inside MPI_Comm_dup, makes a
 * datatype each time and never frees it: the leak is reported at the call inside the
 * callback, which mpicheck records like any other call of the program. Expected verdict:
 * RS001 at that call.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stddef.h>

static int copy_with_leak(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    MPI_Datatype scratch;
    (void)comm, (void)key, (void)extra;
    MPI_Type_dup(MPI_INT, &scratch); /* expect: RS001 */
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int key;
    MPI_Comm copy;
    MPI_Init(&argc, &argv);
    MPI_Comm_create_keyval(copy_with_leak, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    MPI_Comm_free(&copy);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
    MPI_Comm_free_keyval(&key);
    MPI_Finalize();
    return 0;
}
