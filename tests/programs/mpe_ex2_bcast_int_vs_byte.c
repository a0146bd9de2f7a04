/*
 * MPE collective and datatype checking library, section 3.4, examples 2 (MPICH) and 3
 * (Open MPI): four processes broadcast one value; all but the last give MPI_INT, the last
 * gives MPI_BYTE. MPICH aborts the job with a truncation error inside the broadcast.
 * Expected verdict: one TY001 (rank 0 sends 1 x MPI_INT, rank 3 expects 1 x MPI_BYTE).
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Bcast(&x, 1, rank == size - 1 ? MPI_BYTE : MPI_INT, 0, MPI_COMM_WORLD); /* expect: TY001 */
    MPI_Finalize();
    return 0;
}
