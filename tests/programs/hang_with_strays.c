/*
 * A deadlock while the output directory holds things that are not this run's traces and a
 * rank has a child process still alive: a FIFO and a junk file named like traces, and a
 * background `sleep` started with system(). None of them may count as a rank, delay the
 * verdict or hang mpicheck (a FIFO blocks whoever opens it plainly).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *dir = getenv("MPICHECK_OUT_DIR");
    if (rank == 0 && dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/trace-planted-fifo.mpitrace", dir);
        mkfifo(path, 0600);
        snprintf(path, sizeof path, "%s/trace-junk.mpitrace", dir);
        FILE *junk = fopen(path, "w");
        if (junk) {
            fputs("not a trace\n", junk);
            fclose(junk);
        }
    }
    if (system("sleep 20 > /dev/null 2>&1 &") != 0) fprintf(stderr, "system() failed\n");
    MPI_Recv(&value, 1, MPI_INT, 1 - rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DL001 */
    MPI_Finalize();
    return 0;
}
