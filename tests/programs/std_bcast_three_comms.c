/*
 * MPI standard, "Correctness" of collective communication, second erroneous
 * example: broadcasts on three overlapping communicators.
 *
 * comm0 = {0,1}, comm1 = {1,2}, comm2 = {2,0}. Each rank first broadcasts as
 * root on one communicator, then receives a broadcast on another. "If the
 * broadcast is a synchronizing operation, then there is a cyclic dependency":
 * comm2's broadcast waits for comm0's, comm0's for comm1's, comm1's for comm2's.
 * With MPICH and Open MPI the roots only send (tiny messages, buffered), so the
 * run completes. Expected verdict: DL002 (potential deadlock through
 * non-synchronizing collectives) at the first MPI_Bcast of every rank, which
 * is where each rank would wait in the cycle.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int buf1[4] = {0}, buf2[4] = {0}, buf3[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf1[0] = 10 + rank;
    buf2[0] = 20 + rank;
    buf3[0] = 30 + rank;
    MPI_Comm comm0, comm1, comm2;

    /* comm0 = {0,1}, comm1 = {1,2}, comm2 = {0,2}; ranks ordered by world rank. */
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 || rank == 1 ? 0 : MPI_UNDEFINED, rank, &comm0);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 1 || rank == 2 ? 0 : MPI_UNDEFINED, rank, &comm1);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 2 || rank == 0 ? 0 : MPI_UNDEFINED, rank, &comm2);

    /* Roots are given as ranks in the communicator: world 0 is rank 0 of comm0
     * and comm2, world 1 is rank 0 of comm1 (rank 1 of comm0), world 2 is rank 1
     * of comm1 and comm2. */
    switch (rank) {
    case 0:
        MPI_Bcast(buf1, 4, MPI_INT, 0, comm0); /* expect: DL002 */
        MPI_Bcast(buf2, 4, MPI_INT, 1, comm2);
        break;
    case 1:
        MPI_Bcast(buf1, 4, MPI_INT, 0, comm1); /* expect: DL002 */
        MPI_Bcast(buf2, 4, MPI_INT, 0, comm0);
        break;
    case 2:
        MPI_Bcast(buf1, 4, MPI_INT, 1, comm2); /* expect: DL002 */
        MPI_Bcast(buf2, 4, MPI_INT, 0, comm1);
        break;
    }

    if (comm0 != MPI_COMM_NULL) MPI_Comm_free(&comm0);
    if (comm1 != MPI_COMM_NULL) MPI_Comm_free(&comm1);
    if (comm2 != MPI_COMM_NULL) MPI_Comm_free(&comm2);

    MPI_Finalize();
    return 0;
}
