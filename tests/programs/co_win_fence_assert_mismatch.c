/*
 * MPI_Win_fence assertions that must agree: MPI_MODE_NOPRECEDE, if any member gives it,
 * must be given by all (MPI 4.1 §12.5.5). Rank 1 leaves it out of the opening fence; the
 * closing fence passes MPI_MODE_NOSUCCEED on every rank and MPI_MODE_NOSTORE only on rank 0
 * (a local hint, allowed to differ). Expected verdict: CO005 at the opening fence only.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, got = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&value, sizeof value, sizeof value, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(rank == 1 ? 0 : MPI_MODE_NOPRECEDE, win); /* expect: CO005 */
    MPI_Get(&got, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED | (rank == 0 ? MPI_MODE_NOSTORE : 0), win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
