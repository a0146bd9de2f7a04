/*
 * Twin of co_win_fence_assert_mismatch.c: every rank gives MPI_MODE_NOPRECEDE to the
 * opening fence and MPI_MODE_NOSUCCEED to the closing one; MPI_MODE_NOSTORE, a local hint,
 * differs between the ranks. Two windows on different communicators fence independently.
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, got = 0, mine = 0;
    MPI_Win win, self_win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&value, sizeof value, sizeof value, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_create(&mine, sizeof mine, sizeof mine, MPI_INFO_NULL, MPI_COMM_SELF, &self_win);
    if (rank == 0)
        MPI_Win_fence(0, self_win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Get(&got, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED | (rank == 0 ? MPI_MODE_NOSTORE : 0), win);
    MPI_Win_free(&self_win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
