/*
 * Null handles where the standard allows them, and their objects used right: nothing to
 * report. MPI_FILE_NULL names the default error handler of files; MPI_INFO_NULL is "no
 * hints" to the calls that take hints; an info object and an error handler made, used
 * and freed.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

int main(int argc, char **argv)
{
    int nkeys, rank, neighbour;
    MPI_Errhandler handler, file_default;
    MPI_Info info;
    MPI_Comm node, graph;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_File_get_errhandler(MPI_FILE_NULL, &file_default);
    MPI_Errhandler_free(&file_default);
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    MPI_Info_get_nkeys(info, &nkeys);
    MPI_Info_free(&info);
    MPI_Comm_create_errhandler(on_error, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    MPI_Errhandler_free(&handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    neighbour = 1 - rank;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &neighbour, MPI_UNWEIGHTED, 1,
                                   &neighbour, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
