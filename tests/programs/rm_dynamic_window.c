/*
 * Dynamic window misuse (MPI 4.1 §12.2.4): rank 1 attaches 4 ints of `a` and 4 ints of
 * `b` and sends their addresses to rank 0. Rank 0 puts into int 4 of `a`, past the
 * attached part (memory rank 1 owns, but did not attach). Rank 1 detaches `b`, a barrier
 * orders that before rank 0's next put into `b`. Rank 1 then detaches `c`, which it never
 * attached. The window's error handler returns errors, so the run goes on whatever the MPI
 * checks.
 * Expected verdict: RM006 at both puts, RM002 at the last detach.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, one = 1, a[8] = {0}, b[4] = {0}, c[4] = {0};
    MPI_Aint addr[2] = {0, 0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 1) {
        MPI_Win_attach(win, a, 4 * sizeof(int));
        MPI_Win_attach(win, b, sizeof b);
        MPI_Get_address(a, &addr[0]);
        MPI_Get_address(b, &addr[1]);
    }
    MPI_Bcast(addr, 2, MPI_AINT, 1, MPI_COMM_WORLD);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&one, 1, MPI_INT, 1, MPI_Aint_add(addr[0], 4 * sizeof(int)), 1, MPI_INT, win); /* expect: RM006 */
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) MPI_Win_detach(win, b);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&one, 1, MPI_INT, 1, addr[1], 1, MPI_INT, win); /* expect: RM006 */
        MPI_Win_unlock(1, win);
    }
    if (rank == 1) MPI_Win_detach(win, c); /* expect: RM002 */
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
