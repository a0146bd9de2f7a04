/*
 * Correct twin of co_args_mismatch.c: the same dims, `high` and amode on every member
 * (`high` differs between the two groups, which is allowed). Expected verdict: no finding.
 */
/* mpicheck: ranks=4 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, periods[2] = {0, 0}, pid, dims[2] = {2, 2};
    MPI_Comm cart, half, inter, merged;
    MPI_File fh;
    char path[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < 2 ? 2 : 0, 7, &inter);
    MPI_Intercomm_merge(inter, rank >= 2, &merged);
    pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/mpicheck-co005ok-%d.tmp", pid);
    int amode = MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_WRONLY;
    if (MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh) == MPI_SUCCESS)
        MPI_File_close(&fh);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
