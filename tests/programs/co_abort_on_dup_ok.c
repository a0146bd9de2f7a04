/*
 * NWChem's error path (errquit -> GA_Error -> ARMCI_Error -> MPI_Abort on ARMCI's duplicate
 * of MPI_COMM_WORLD): rank 0 aborts the job while rank 1 waits in a barrier. MPI_Abort ends
 * every process (MPI 4.1 §11.5), so the barrier rank 0 never reaches is no collective
 * mismatch. Under MPICH, an abort on a communicator other than MPI_COMM_WORLD runs the exit
 * handlers of both processes, and mpicheck reported a false CO001.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm world;

    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(world, &rank);
    MPI_Barrier(world);
    if (rank == 0) {
        sleep(1); /* rank 1 is in the barrier by now */
        MPI_Abort(world, 1);
    }
    MPI_Barrier(world);
    MPI_Comm_free(&world);
    MPI_Finalize();
    return 0;
}
