/*
 * Correct twin of rm_vector_target_beyond_window.c: the same vector type (ints 0 and 4 of
 * each element, extent 5 ints). Rank 0 puts 2 elements at displacement 0 of rank 0's
 * 10-int window (ints 0, 4, 5, 9: the last one is its last int); rank 1 puts 1 element at
 * displacement 2 (ints 2, 6), interleaved with rank 0's but sharing no int.
 * Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, src[4] = {1, 2, 3, 4}, slots[10] = {0};
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
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(src, 4, MPI_INT, 0, 0, 2, vector, win);
    else
        MPI_Put(src, 2, MPI_INT, 0, 2, 1, vector, win);
    MPI_Win_fence(0, win);
    if (rank == 0 && (slots[0] != 1 || slots[4] != 2 || slots[5] != 3 || slots[9] != 4 || slots[2] != 1 || slots[6] != 2)) {
        fprintf(stderr, "unexpected window contents\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Win_free(&win);
    MPI_Type_free(&vector);
    MPI_Finalize();
    return 0;
}
