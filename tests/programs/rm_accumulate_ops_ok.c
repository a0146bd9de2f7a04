/*
 * Accumulates whose operations MPI defines for their datatypes, the twin of
 * rm_accumulate_op_undefined.c: MPI_SUM on doubles, MPI_BAND on ints, MPI_MAXLOC on
 * MPI_2INT pairs, MPI_REPLACE on a vector of ints (a derived type of one predefined type),
 * MPI_NO_OP in MPI_Get_accumulate, MPI_MAX in MPI_Fetch_and_op on MPI_INT64_T, all into
 * rank 0's window. Nothing may be reported; the program checks the results itself.
 * (MPI_Compare_and_swap is left out: Open MPI 4.1's osc/rdma crashes on one in a fence
 * epoch.)
 */
/* mpicheck: ranks=2 checks-itself */
/* expect: none */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct window {
    double sum;
    int bits;
    int pair[2];
    int replaced[4];
    int64_t max;
};

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    struct window w = {0};
    MPI_Win win;
    MPI_Datatype every_other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Win_create(&w, sizeof w, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    double one = 1.0;
    int bit = 1 << rank, pair[2] = {10 + rank, rank}, values[4] = {7, 7, 7, 7}, got[2];
    int64_t mine = 100 + rank, old;
    MPI_Win_fence(0, win);
    MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, offsetof(struct window, sum), 1, MPI_DOUBLE, MPI_SUM, win);
    MPI_Accumulate(&bit, 1, MPI_INT, 0, offsetof(struct window, bits), 1, MPI_INT, MPI_BOR, win);
    MPI_Accumulate(pair, 1, MPI_2INT, 0, offsetof(struct window, pair), 1, MPI_2INT, MPI_MAXLOC, win);
    if (rank == 1)
        MPI_Accumulate(values, 2, MPI_INT, 0, offsetof(struct window, replaced), 1, every_other,
                       MPI_REPLACE, win);
    MPI_Win_fence(0, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, got, 2, MPI_INT, 0, offsetof(struct window, pair), 2,
                       MPI_INT, MPI_NO_OP, win);
    MPI_Fetch_and_op(&mine, &old, MPI_INT64_T, 0, offsetof(struct window, max), MPI_MAX, win);
    MPI_Win_fence(0, win);

    if (rank == 0) {
        if (w.sum != size || w.bits != (1 << size) - 1 || w.pair[0] != 10 + size - 1 ||
            w.replaced[0] != 7 || w.replaced[1] != 0 || w.replaced[2] != 7 ||
            w.max != 100 + size - 1) {
            fprintf(stderr, "wrong results\n");
            errors = 1;
        }
    }
    if (got[0] != 10 + size - 1) {
        fprintf(stderr, "rank %d: wrong pair %d\n", rank, got[0]);
        errors = 1;
    }
    MPI_Win_free(&win);
    MPI_Type_free(&every_other);
    MPI_Finalize();
    return errors;
}
