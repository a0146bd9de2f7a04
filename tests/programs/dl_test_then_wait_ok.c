/*
 * MUMPS 5.5 (DMUMPS_SCATTER_DIST_RHS, dsol_distrhs.F, reached by PETSc's
 * -pc_factor_mat_solver_type mumps) sends each block as two messages, indices (tag 51)
 * then values (tag 52), and in one loop receives the others' blocks (MPI_Iprobe, then both
 * receives from the source found) and frees its send buffers: MPI_Test of the values'
 * request, and only if it is complete MPI_Wait of the indices' request. Without
 * buffering that test fails until the peer has received both messages, and the loop goes
 * on receiving: no potential deadlock. (The run's test succeeds at once because MPI
 * buffered the values; the wait after it is on a path the unbuffered program never takes.)
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, peer, flag, received = 0, freed = 0, ints[4] = {0}, in_ints[4];
    double reals[4] = {0}, in_reals[4];
    MPI_Request reqi, reqr;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Isend(ints, 4, MPI_INT, peer, 51, MPI_COMM_WORLD, &reqi);
    MPI_Isend(reals, 4, MPI_DOUBLE, peer, 52, MPI_COMM_WORLD, &reqr);
    while (!received || !freed) {
        if (!received) {
            MPI_Iprobe(MPI_ANY_SOURCE, 51, MPI_COMM_WORLD, &flag, &status);
            if (flag) {
                MPI_Recv(in_ints, 4, MPI_INT, status.MPI_SOURCE, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(in_reals, 4, MPI_DOUBLE, status.MPI_SOURCE, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                received = 1;
            }
        }
        if (!freed) {
            MPI_Test(&reqr, &flag, MPI_STATUS_IGNORE);
            if (flag) {
                MPI_Wait(&reqi, MPI_STATUS_IGNORE);
                freed = 1;
            }
        }
    }
    MPI_Finalize();
    return 0;
}
