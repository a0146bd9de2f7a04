/*
 * MPI_Intercomm_merge with different `high` values inside one group: rank 1 passes true,
 * rank 0 of the same group false. MPICH hangs in the merge (the deadlock watch ends the
 * job); the recorded arguments still show the mismatch. Expected verdict: CO005 at the merge.
 */
/* mpicheck: ranks=4 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm half, inter, merged;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < 2 ? 2 : 0, 7, &inter);
    MPI_Intercomm_merge(inter, rank == 1, &merged); /* expect: CO005 */
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
