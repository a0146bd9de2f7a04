/* Reproducer of an open false finding (tests/real-apps/known-findings.txt, DL003 in MUMPS's
 * dmumps_solve_recv_and_treat_), not yet a tier-2 test: under MPICH at 4 ranks mpicheck
 * reports "if the wildcard probe of rank 0 matches rank 1 instead of rank 2, ranks 0, 2 would
 * be blocked forever" (timing decides; Open MPI's runs gave MR001 only). Once fixed it moves
 * to tests/programs with "Expected verdict: MR001 at the wildcard MPI_Iprobe, and no DL003"
 * and `mpicheck: ranks=4`.
 *   mpicc.mpich -o repro dl_probe_poll_then_ready_ok.c && mpicheck run -n 4 ./repro
 */
/* Correct: rank 0 takes one message from each other rank in arrival order, the MUMPS way:
 * MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) until a message is there, then MPI_Recv from the
 * status's source and tag. The first message is polled for; the later ones are already
 * there, so their MPI_Iprobe succeeds at its first try. Each sender uses its own tag. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            int flag = 0, value;
            MPI_Status status;
            while (!flag)
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
            MPI_Recv(&value, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (i == 1)
                usleep(300000); /* the others' messages arrive meanwhile */
        }
    } else {
        if (rank != 2)
            usleep(100000);
        int value = rank;
        MPI_Send(&value, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
