/*
 * A program that closes a file descriptor it does not own, as a double close() does: here
 * the one of mpicheck's trace, found through /proc/self/fd. It then opens its own file,
 * which takes the lowest free number (the trace's, if the trace had a low one), writes
 * 64 KiB of 'x' to it and makes calls that grow the trace. The file must keep exactly its
 * 64 KiB (mpicheck once grew it by tens of MB, and the rank died of SIGBUS).
 */
#include <mpi.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char link[4096], path[300], name[64], buf[4096];
    int rank, fd;
    static int in[1000], out[1000];
    struct dirent *entry;
    DIR *fds;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fds = opendir("/proc/self/fd");
    while ((entry = readdir(fds)) != NULL) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) {
            link[n] = 0;
            if (strstr(link, ".mpitrace") != NULL)
                close(atoi(entry->d_name));
        }
    }
    closedir(fds);
    snprintf(name, sizeof name, "%s-%d.txt", argc > 1 ? argv[1] : "data", rank);
    fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    memset(buf, 'x', sizeof buf);
    for (int i = 0; i < 16; i++)
        if (write(fd, buf, sizeof buf) != sizeof buf)
            return 1;
    /* Calls whose arguments differ from one to the next: each is a record of its own. */
    for (int i = 0; i < 100000; i++)
        MPI_Allreduce(in, out, 1 + i % 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    close(fd);
    return 0;
}
