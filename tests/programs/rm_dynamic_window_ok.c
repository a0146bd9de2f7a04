/*
 * Correct twin of rm_dynamic_window.c: rank 0 puts only into the attached ints of `a` and
 * `b`, rank 1 detaches `b` after a barrier that follows rank 0's epoch, and frees the
 * window with `a` still attached, which detaches it (MPI 4.1 §12.2.4).
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, one = 1, a[8] = {0}, b[4] = {0};
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
    if (rank == 1) {
        MPI_Win_attach(win, a, 4 * sizeof(int));
        MPI_Win_attach(win, b, sizeof b);
        MPI_Get_address(a, &addr[0]);
        MPI_Get_address(b, &addr[1]);
    }
    MPI_Bcast(addr, 2, MPI_AINT, 1, MPI_COMM_WORLD);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&one, 1, MPI_INT, 1, MPI_Aint_add(addr[0], 3 * sizeof(int)), 1, MPI_INT, win);
        MPI_Put(&one, 1, MPI_INT, 1, MPI_Aint_add(addr[1], 2 * sizeof(int)), 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_detach(win, b);
        if (a[3] != 1 || b[2] != 1) {
            fprintf(stderr, "rank 1 holds %d and %d, not 1 and 1\n", a[3], b[2]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
