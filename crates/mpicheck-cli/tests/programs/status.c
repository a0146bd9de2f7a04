/* Reads a line on rank 0's stdin, prints to stdout and stderr, and exits with status 3:
 * all of which must be the same under mpicheck as without it. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    char line[64] = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && fgets(line, sizeof line, stdin))
        line[strcspn(line, "\n")] = 0;
    MPI_Bcast(line, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
    printf("rank %d read '%s' args=%d\n", rank, line, argc - 1);
    fprintf(stderr, "rank %d to stderr\n", rank);
    MPI_Finalize();
    return rank == 0 ? 3 : 0;
}
