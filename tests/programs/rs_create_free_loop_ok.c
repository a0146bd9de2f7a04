/*
 * Twin of rs_objects_leaked.c: a long-running loop creates and frees communicators,
 * groups, datatypes, ops, info objects, error handlers, keyvals and windows; nothing
 * is left at MPI_Finalize, so nothing is reported.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stddef.h>

static void add(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

int main(int argc, char **argv)
{
    int rank, value = 1, sum, key, cell = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 200; i++) {
        MPI_Comm dup, split;
        MPI_Group group, first;
        MPI_Datatype vec;
        MPI_Op op;
        MPI_Info info;
        MPI_Errhandler handler;
        MPI_Win win;
        int zero = 0;

        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_split(dup, rank % 2, rank, &split);
        MPI_Comm_group(dup, &group);
        MPI_Group_incl(group, 1, &zero, &first);
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        MPI_Op_create(add, 1, &op);
        MPI_Allreduce(&value, &sum, 1, MPI_INT, op, dup);
        MPI_Info_create(&info);
        MPI_Info_set(info, "no_locks", "true");
        MPI_Comm_create_errhandler(on_error, &handler);
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
        MPI_Win_create(&cell, sizeof cell, sizeof cell, info, dup, &win);
        MPI_Win_free(&win);
        MPI_Comm_free_keyval(&key);
        MPI_Errhandler_free(&handler);
        MPI_Info_free(&info);
        MPI_Op_free(&op);
        MPI_Type_free(&vec);
        MPI_Group_free(&first);
        MPI_Group_free(&group);
        MPI_Comm_free(&split);
        MPI_Comm_free(&dup);
    }
    MPI_Finalize();
    return 0;
}
