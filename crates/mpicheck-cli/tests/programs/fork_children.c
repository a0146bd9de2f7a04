/* A rank that starts other processes: forked children that exit (running the exit handlers
 * inherited from the rank) after asking MPI_Initialized, system() and popen(). None of them
 * may write into the rank's trace or leave a trace claiming its rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, flag, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            MPI_Initialized(&flag);
            exit(0);
        }
        waitpid(pid, NULL, 0);
    }
    if (system("true") != 0) fprintf(stderr, "system() failed\n");
    char line[64] = "";
    FILE *child = popen("echo from-popen", "r");
    if (child) {
        if (!fgets(line, sizeof line, child)) line[0] = '\0';
        pclose(child);
    }
    /* Enough calls after the children exited to grow the trace past its first mapping. */
    for (int i = 0; i < 200000; i++) MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("sum %d %s", sum, line);
    MPI_Finalize();
    return 0;
}
