/*
 * Every MPI_Comm_group and MPI_Comm_get_errhandler call returns a new reference the
 * caller frees, even when the handle equals an earlier one: MPICH and Open MPI return
 * the communicator's one group, and the program's own error handler, each time.
 */
/* mpicheck: ranks=1 */
/* expect: none */
#include <mpi.h>

static void ignore_errors(MPI_Comm *comm, int *code, ...) { (void)comm; (void)code; }

int main(int argc, char **argv)
{
    MPI_Group g1, g2;
    MPI_Errhandler mine, current;

    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &g1);
    MPI_Comm_group(MPI_COMM_WORLD, &g2);
    MPI_Group_free(&g1);
    MPI_Group_free(&g2);
    MPI_Comm_create_errhandler(ignore_errors, &mine);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &current);
    MPI_Errhandler_free(&current);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&mine);
    MPI_Finalize();
    return 0;
}
