/*
 * Arguments of creation calls that must agree on all members: rank 3 passes other
 * MPI_Cart_create dims (same number of processes) and opens a file with another amode
 * (ROMIO returns an error from MPI_File_open). Expected verdict: CO005 at each call.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, periods[2] = {0, 0}, pid;
    MPI_Comm cart;
    MPI_File fh;
    char path[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int dims[2] = {rank == 3 ? 4 : 2, rank == 3 ? 1 : 2};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart); /* expect: CO005 */
    pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/mpicheck-co005-%d.tmp", pid);
    int amode = MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | (rank == 3 ? MPI_MODE_RDWR : MPI_MODE_WRONLY);
    if (MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh) == MPI_SUCCESS) /* expect: CO005 */
        MPI_File_close(&fh);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
