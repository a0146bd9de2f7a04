/*
 * A target datatype with holes that reaches past the target's window: rank 1 exposes 8
 * ints, and rank 0 puts 2 elements of a vector type (2 blocks of 1 int, stride 4 ints:
 * 2 ints of data, extent 5 ints) at displacement 2: ints 2, 6, 7 and 11. The data is only
 * 4 ints, 16 bytes from the displacement, but the second element's last int is int 11 of a
 * window of ints 0..7 (MPI 4.1 §12.3: the target buffer must fit in the target window).
 * Expected verdict: RM006 at the MPI_Put.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, src[4] = {1, 2, 3, 4}, slots[16] = {0};
    MPI_Win win;
    MPI_Datatype vector;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Type_vector(2, 1, 4, MPI_INT, &vector);
    MPI_Type_commit(&vector);
    /* The window is the first 8 ints of slots: the put lands in memory the window does not
     * expose, but that the program owns. */
    MPI_Win_create(slots, 8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(src, 4, MPI_INT, 1, 2, 2, vector, win); /* expect: RM006 */
    MPI_Win_fence(0, win);

    MPI_Win_free(&win);
    MPI_Type_free(&vector);
    MPI_Finalize();
    return 0;
}
