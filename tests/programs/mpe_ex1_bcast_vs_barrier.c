/*
 * MPE collective and datatype checking library, section 3.4, example 1: run with four
 * processes, all but the last call MPI_Bcast, the last calls MPI_Barrier.
 * Expected verdict: CO001 (collective call mismatch) naming both calls; rank 3 then hangs
 * in the barrier after the others finished, which is reported as the deadlock it is
 * (DL001) at the barrier.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank < size - 1)
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); /* expect: CO001 */
    else
        MPI_Barrier(MPI_COMM_WORLD); /* expect: CO001, DL001 */
    MPI_Finalize();
    return 0;
}
