/*
 * Correct, after PETSc's star-forest reduce over a window (PetscSFReduceBegin_Window):
 * in one fence epoch, every rank but 0 adds its values into overlapping ints of rank 0
 * with MPI_Accumulate(MPI_SUM), each through its own derived datatype of MPI_INT (an
 * indexed block type of a different length per origin). Concurrent accumulates with the
 * same operation and the same basic datatype are atomic per element (MPI 4.1 §12.7.1),
 * whatever derived types carry them. Expected verdict: none.
 */
/* mpicheck: ranks=3 */
/* expect: none */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, i, sums[4] = {0, 0, 0, 0}, values[4];
    MPI_Win win;
    MPI_Datatype target_type = MPI_DATATYPE_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_create(sums, sizeof sums, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* Origin r updates ints 0..r of rank 0: rank 1 ints 0-1, rank 2 ints 0-2. */
    int n = rank + 1, displs[4] = {0, 1, 2, 3};
    for (i = 0; i < 4; i++)
        values[i] = rank;
    if (rank > 0) {
        MPI_Type_create_indexed_block(n, 1, displs, MPI_INT, &target_type);
        MPI_Type_commit(&target_type);
    }
    MPI_Win_fence(0, win);
    if (rank > 0)
        MPI_Accumulate(values, n, MPI_INT, 0, 0, 1, target_type, MPI_SUM, win);
    MPI_Win_fence(0, win);

    if (rank == 0 && size == 3 && (sums[0] != 3 || sums[1] != 3 || sums[2] != 2)) {
        fprintf(stderr, "wrong sums %d %d %d\n", sums[0], sums[1], sums[2]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank > 0)
        MPI_Type_free(&target_type);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
