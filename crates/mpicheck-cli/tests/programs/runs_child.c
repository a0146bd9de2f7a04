/*
 * Rank 0 runs a child program with system() between two barriers; the child (the program
 * named by argv[1], an MPI program that queries MPI without initializing it) inherits the
 * rank's environment, so its trace claims rank 0. Used by tests/trace_robustness.rs.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && argc > 1) {
        char command[4096];
        snprintf(command, sizeof command, "%s", argv[1]);
        if (system(command) != 0)
            return 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
