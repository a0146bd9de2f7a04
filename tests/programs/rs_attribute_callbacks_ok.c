/*
 * Attribute callbacks of every kind still do what the program asked under mpicheck (which
 * runs them behind trampolines so that their MPI calls are recorded), and objects they free
 * are not leaks: a communicator keyval with the program's copy function, one with
 * MPI_COMM_DUP_FN and one with MPI_COMM_NULL_COPY_FN; a datatype keyval whose delete
 * function frees a datatype; a window keyval whose delete function frees a group. The
 * program checks the copied values itself and exits with 1 when one is wrong.
 */
/* mpicheck: ranks=2 checks-itself */
/* expect: none */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int copies = 0;

static int copy_plus_one(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)key;
    copies += *(int *)extra;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int free_type(MPI_Datatype type, int key, void *value, void *extra)
{
    (void)type, (void)key, (void)extra;
    return MPI_Type_free((MPI_Datatype *)value);
}

static int free_group(MPI_Win win, int key, void *value, void *extra)
{
    (void)win, (void)key, (void)extra;
    return MPI_Group_free((MPI_Group *)value);
}

int main(int argc, char **argv)
{
    int one = 1, mine, dup_fn, none, type_key, win_key, flag, bad = 0, x = 0;
    void *value;
    MPI_Comm copy;
    MPI_Datatype pair, held;
    MPI_Group group;
    MPI_Win win;
    MPI_Init(&argc, &argv);

    MPI_Comm_create_keyval(copy_plus_one, MPI_COMM_NULL_DELETE_FN, &mine, &one);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dup_fn, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &none, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, mine, (void *)(intptr_t)41);
    MPI_Comm_set_attr(MPI_COMM_WORLD, dup_fn, (void *)(intptr_t)7);
    MPI_Comm_set_attr(MPI_COMM_WORLD, none, (void *)(intptr_t)9);
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    MPI_Comm_get_attr(copy, mine, &value, &flag);
    bad |= !flag || (intptr_t)value != 42 || copies != 1;
    MPI_Comm_get_attr(copy, dup_fn, &value, &flag);
    bad |= !flag || (intptr_t)value != 7;
    MPI_Comm_get_attr(copy, none, &value, &flag);
    bad |= flag;
    MPI_Comm_free(&copy);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, mine);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, dup_fn);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, none);
    MPI_Comm_free_keyval(&mine);
    MPI_Comm_free_keyval(&dup_fn);
    MPI_Comm_free_keyval(&none);

    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, free_type, &type_key, NULL);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_dup(MPI_INT, &held);
    MPI_Type_set_attr(pair, type_key, &held);
    MPI_Type_free(&pair); /* runs free_type: held is freed */
    MPI_Type_free_keyval(&type_key);

    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, free_group, &win_key, NULL);
    MPI_Win_create(&x, sizeof x, sizeof x, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &group);
    MPI_Win_set_attr(win, win_key, &group);
    MPI_Win_free(&win); /* runs free_group */
    MPI_Win_free_keyval(&win_key);

    if (bad) printf("an attribute was not copied as asked\n");
    MPI_Finalize();
    return bad;
}
