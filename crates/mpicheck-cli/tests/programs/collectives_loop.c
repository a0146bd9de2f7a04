/*
 * 2 ranks: a long loop of collectives, then MPI_Finalize. With an argument, rank 1 leaks a
 * duplicated communicator (RS001, a warning) and rank 0 passes MPI_COMM_NULL to
 * MPI_Comm_size early (AR004, an error), so a copy of rank 0's trace cut in the loop keeps
 * real findings on both sides of the cut. Used by tests/trace_robustness.rs.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 1, y = 0, i;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        if (rank == 0)
            MPI_Comm_size(MPI_COMM_NULL, &size);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (i = 0; i < 300; i++) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(&x, 1, MPI_INT, i % 2, dup);
    }
    if (argc == 1 || rank == 0)
        MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
