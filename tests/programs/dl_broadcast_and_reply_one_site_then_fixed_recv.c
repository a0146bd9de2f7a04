/*
 * The deadlocking twin of dl_iprobe_reply_and_broadcast_one_site_ok.c, built on
 * dl_reply_then_fixed_recv.c. One function (send_int) makes every send of rank 0: two
 * rounds that send each worker a job and take both results with MPI_ANY_SOURCE, then a
 * reply to whoever sent the last result (status.MPI_SOURCE), so its one call site both
 * names the latest wildcard's source and does not. Then rank 0 expects a result from
 * rank 1 by name. Rank 1 sends its last result late, so in this run the last wildcard
 * takes rank 2's and the program ends; had it taken rank 1's, rank 0 would wait for ever
 * in MPI_Recv from rank 1, whether the reply goes to the source or to the rank it went
 * to in this run. (The last results have a tag of their own, 2: the rounds' wildcard
 * receives must not take them.) Expected verdict: DL003 and MR001 at the last wildcard
 * MPI_Recv, and MR001 at the rounds' wildcard MPI_Recv.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <unistd.h>

static void send_int(int x, int dest, int tag)
{
    MPI_Send(&x, 1, MPI_INT, dest, tag, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, x = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Status st;
        for (int round = 0; round < 2; round++) {
            for (int w = 1; w <= 2; w++)
                send_int(round, w, 1);
            for (int w = 1; w <= 2; w++)
                MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); /* expect: MR001 */
        }
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st); /* expect: DL003, MR001 */
        send_int(x, st.MPI_SOURCE, 1);
        MPI_Recv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        send_int(x, 1, 1);
    } else {
        for (int round = 0; round < 2; round++) {
            MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
        if (rank == 1)
            usleep(300000);
        x = rank;
        MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
