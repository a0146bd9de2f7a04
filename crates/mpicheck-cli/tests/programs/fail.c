/* Fails as its arguments say, after a barrier: `exit N` (rank 1 exits with status N),
 * `segv` (rank 1 dies of SIGSEGV), `ok` (succeeds). */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    const char *what = argc > 1 ? argv[1] : "ok";
    int status = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(what, "segv") == 0 && rank == 1)
        raise(SIGSEGV);
    if (strcmp(what, "exit") == 0 && rank == 1)
        exit(status);
    MPI_Finalize();
    return 0;
}
