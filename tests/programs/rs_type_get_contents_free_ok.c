/*
 * PETSc (MPIPetsc_Type_unwrap) looks through an MPI_Type_dup with MPI_Type_get_contents
 * and frees the datatype it returns unless it is predefined: MPI_Type_get_contents
 * returns new datatypes the caller must free (MPI 4.1 §5.1.13). MPICH hands out the
 * original's own handle again (one more reference to it); Open MPI a new handle, which
 * may sit at the address of a type freed before.
 */
/* mpicheck: ranks=1 */
/* expect: none */
#include <mpi.h>
#include <stddef.h>

static void unwrap(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    MPI_Datatype inner;

    MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_DUP)
        return;
    MPI_Type_get_contents(t, 0, 0, 1, NULL, NULL, &inner);
    MPI_Type_get_envelope(inner, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&inner);
}

int main(int argc, char **argv)
{
    MPI_Datatype scratch, pair, unit, int_copy;

    MPI_Init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_dup(pair, &unit);
    MPI_Type_contiguous(3, MPI_INT, &scratch); /* Open MPI puts the next type here */
    MPI_Type_free(&scratch);
    for (int i = 0; i < 3; i++)
        unwrap(unit);
    MPI_Type_dup(MPI_INT, &int_copy);
    unwrap(int_copy); /* MPI_INT comes back: predefined, not freed */
    MPI_Type_free(&int_copy);
    MPI_Type_free(&unit);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
