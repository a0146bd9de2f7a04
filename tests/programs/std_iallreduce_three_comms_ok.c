/*
 * MPI standard, nonblocking collective operations: simultaneous collectives on
 * three overlapping communicators (the three-communicator example, Figure 13
 * of the collective chapter).
 *
 * comm1 = {0,1}, comm2 = {1,2}, comm3 = {0,2}. Blocking collectives on all three
 * have no deadlock-free order, but nonblocking MPI_Iallreduce calls followed by
 * one MPI_Waitall are correct in any order. Expected verdict: none (a checker
 * must not report the cycle it would report for the blocking version,
 * std_bcast_three_comms.c).
 */
/* mpicheck: ranks=3 */
/* expect: none */
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
    MPI_Request reqs[2];
    MPI_Comm comm1, comm2, comm3;
    int sbuf1 = rank, sbuf2 = 10 * rank, sbuf3 = 100 * rank;
    int rbuf1 = 0, rbuf2 = 0, rbuf3 = 0;

    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 || rank == 1 ? 0 : MPI_UNDEFINED, rank, &comm1);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 1 || rank == 2 ? 0 : MPI_UNDEFINED, rank, &comm2);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 || rank == 2 ? 0 : MPI_UNDEFINED, rank, &comm3);

    switch (rank) {
    case 0:
        MPI_Iallreduce(&sbuf1, &rbuf1, 1, MPI_INT, MPI_SUM, comm1, &reqs[0]);
        MPI_Iallreduce(&sbuf3, &rbuf3, 1, MPI_INT, MPI_SUM, comm3, &reqs[1]);
        break;
    case 1:
        MPI_Iallreduce(&sbuf1, &rbuf1, 1, MPI_INT, MPI_SUM, comm1, &reqs[0]);
        MPI_Iallreduce(&sbuf2, &rbuf2, 1, MPI_INT, MPI_SUM, comm2, &reqs[1]);
        break;
    case 2:
        MPI_Iallreduce(&sbuf2, &rbuf2, 1, MPI_INT, MPI_SUM, comm2, &reqs[0]);
        MPI_Iallreduce(&sbuf3, &rbuf3, 1, MPI_INT, MPI_SUM, comm3, &reqs[1]);
        break;
    }
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    if (comm1 != MPI_COMM_NULL) MPI_Comm_free(&comm1);
    if (comm2 != MPI_COMM_NULL) MPI_Comm_free(&comm2);
    if (comm3 != MPI_COMM_NULL) MPI_Comm_free(&comm3);

    MPI_Finalize();
    return 0;
}
