/*
 * Twin of rs_type_get_contents_free_ok.c: the datatype MPI_Type_get_contents returns is
 * the caller's to free (MPI 4.1 §5.1.13); here it never is (RS001 at the call).
 */
/* mpicheck: ranks=1 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    MPI_Datatype pair, unit, inner;

    MPI_Init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_dup(pair, &unit);
    MPI_Type_free(&pair); /* unit keeps what it needs */
    MPI_Type_get_contents(unit, 0, 0, 1, NULL, NULL, &inner); /* expect: RS001 */
    MPI_Type_free(&unit);
    MPI_Finalize();
    return 0;
}
