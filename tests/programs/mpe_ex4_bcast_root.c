/*
 * MPE collective and datatype checking library, section 3.4, examples 4 (MPICH) and 5
 * (Open MPI): four processes broadcast; all but the last use root 0, the last uses its
 * own rank. Expected verdict: one CO002 (root mismatch) naming both roots.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Bcast(x, 4, MPI_INT, rank == size - 1 ? rank : 0, MPI_COMM_WORLD); /* expect: CO002 */
    MPI_Finalize();
    return 0;
}
