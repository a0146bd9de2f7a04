/* The program's attribute callbacks, run by MPI inside one of its calls, record their own MPI
 * calls.
 *
 * MPI calls the copy and delete functions of a keyval from inside MPI_Comm_dup, MPI_Comm_free,
 * MPI_Comm_delete_attr, ... and, for the attributes of MPI_COMM_SELF, from MPI_Finalize: the
 * standard's way for a library to clean up at the end (MPI 4.1 §11.2.2). Those functions are
 * the program's code, but they run while mpicheck_depth says "inside MPI", so the wrappers
 * would pass their calls through unrecorded, and a communicator freed there would look leaked.
 * The keyval constructors therefore give MPI a trampoline for each function and a small
 * record of the program's functions and extra_state as extra_state; the trampoline runs the
 * program's function with the depth at 0 and restores it after. The records of those calls
 * lie inside the enclosing call's interval (same thread, entered before it returned), which is
 * how the analyzer knows them (e.g. not "after MPI_Finalize").
 *
 * The record is never freed: MPI may call the functions until the last attribute of the keyval
 * is gone, after MPI_*_free_keyval. It is a few words per keyval. Keyvals made through the
 * Fortran bindings keep their functions unwrapped. */
#define _GNU_SOURCE
#include "have.h"
#include "mpicheck_interpose.h"

struct mpicheck_keyval {
    void (*copy)(void);
    void (*del)(void);
    void *extra;
};

/* Runs a program function as a program call: MPI calls it makes are recorded. */
#define AS_PROGRAM(call)                          \
    do {                                          \
        int mpicheck_saved_depth = mpicheck_depth; \
        mpicheck_depth = 0;                       \
        rc = (call);                              \
        mpicheck_depth = mpicheck_saved_depth;    \
    } while (0)

void *mpicheck_keyval_state(void (*copy)(void), void (*del)(void), void *extra)
{
    struct mpicheck_keyval *k = malloc(sizeof *k);
    if (k == NULL) return NULL;
    k->copy = copy;
    k->del = del;
    k->extra = extra;
    return k;
}

/* A null copy function (MPICH's MPI_*_NULL_COPY_FN) copies nothing; a null delete function
 * (MPI_*_NULL_DELETE_FN) does nothing. */
#define TRAMPOLINES(kind, handle_t, copy_t, delete_t)                                              \
    int mpicheck_##kind##_copy_trampoline(handle_t old, int keyval, void *extra, void *in, void *out, \
                                          int *flag)                                              \
    {                                                                                             \
        const struct mpicheck_keyval *k = extra;                                                  \
        int rc;                                                                                   \
        if (k->copy == NULL) {                                                                    \
            *flag = 0;                                                                            \
            return MPI_SUCCESS;                                                                   \
        }                                                                                         \
        AS_PROGRAM(((copy_t *)k->copy)(old, keyval, k->extra, in, out, flag));                    \
        return rc;                                                                                \
    }                                                                                             \
    int mpicheck_##kind##_delete_trampoline(handle_t h, int keyval, void *value, void *extra)     \
    {                                                                                             \
        const struct mpicheck_keyval *k = extra;                                                  \
        int rc;                                                                                   \
        if (k->del == NULL) return MPI_SUCCESS;                                                   \
        AS_PROGRAM(((delete_t *)k->del)(h, keyval, value, k->extra));                             \
        return rc;                                                                                \
    }

TRAMPOLINES(comm, MPI_Comm, MPI_Comm_copy_attr_function, MPI_Comm_delete_attr_function)
TRAMPOLINES(type, MPI_Datatype, MPI_Type_copy_attr_function, MPI_Type_delete_attr_function)
TRAMPOLINES(win, MPI_Win, MPI_Win_copy_attr_function, MPI_Win_delete_attr_function)
