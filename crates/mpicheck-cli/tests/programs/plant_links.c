/* Rank 0 plants symbolic links named like mpicheck's report files in the output directory
 * of the run (MPICHECK_OUT_DIR), pointing at the file given as argv[1]: mpicheck must never
 * write through them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *dir = getenv("MPICHECK_OUT_DIR");
    if (rank == 0 && dir && argc > 1) {
        const char *names[] = {"report.json", "report.sarif", "report.html", "run.json"};
        char path[4096];
        for (int i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            if (symlink(argv[1], path) != 0)
                perror("symlink");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
