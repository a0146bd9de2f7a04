/*
 * Collective MPI-IO arguments that must agree, and a split collective out of order: rank 3
 * sets another file size and another atomicity flag, and every rank starts a write_all
 * split collective and does a collective read before ending it (ROMIO returns errors from
 * the inconsistent calls; files default to MPI_ERRORS_RETURN). Expected verdict:
 * CO005 at set_size and set_atomicity, CO006 at the interleaved read (and its begin).
 */
/* mpicheck: ranks=4 */
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
    snprintf(path, sizeof path, "/tmp/mpicheck-co006-%d.tmp", pid);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, rank == 3 ? 256 : 128); /* expect: CO005 */
    MPI_File_set_atomicity(fh, rank == 3); /* expect: CO005 */
    MPI_File_set_view(fh, 16 * rank, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    if (rank == 0) {
        MPI_File_write_all_begin(fh, buf, 4, MPI_INT); /* expect: CO006 */
        MPI_File_read_all(fh, in, 4, MPI_INT, &st); /* expect: CO006 */
        MPI_File_write_all_end(fh, buf, &st);
    } else {
        MPI_File_write_all_begin(fh, buf, 4, MPI_INT);
        MPI_File_read_all(fh, in, 4, MPI_INT, &st);
        MPI_File_write_all_end(fh, buf, &st);
    }
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
