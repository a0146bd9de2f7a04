/*
 * Correct twin of co_file_mismatch.c: the same size, atomicity flag and etype everywhere,
 * and each split collective ended before the next collective file operation. Expected
 * verdict: no finding.
 */
/* mpicheck: ranks=4 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, pid, buf[4] = {0}, in[4];
    MPI_File fh;
    MPI_Status st;
    char path[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/mpicheck-co006ok-%d.tmp", pid);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, 128);
    MPI_File_set_atomicity(fh, 0);
    MPI_File_set_view(fh, 16 * rank, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_write_all_begin(fh, buf, 4, MPI_INT);
    MPI_File_write_all_end(fh, buf, &st);
    MPI_File_read_at_all(fh, 0, in, 4, MPI_INT, &st);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
