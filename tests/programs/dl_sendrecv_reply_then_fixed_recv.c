/*
 * The master-worker of dl_sendrecv_reply_ok.c (MPI_Sendrecv replies to status.MPI_SOURCE,
 * correct in every matching), then a last request: rank 0 takes it with MPI_ANY_SOURCE,
 * answers its sender with a sendrecv, then expects rank 1's by name. Rank 1 sleeps before
 * its last request, so in this run the wildcard takes rank 2's and the program ends. Had
 * rank 1's come first, rank 0 would wait forever in its receive from rank 1 and rank 2 in
 * its send: a potential deadlock at the last wildcard only. Expected verdict: MR001 at
 * both wildcards, DL003 at the last one.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <unistd.h>

#define ROUNDS 20

int main(int argc, char **argv)
{
    int rank, size, x = 0, ack = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        MPI_Status st;
        for (int i = 0; i < ROUNDS * (size - 1); i++) {
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); /* expect: MR001 */
            MPI_Sendrecv(&x, 1, MPI_INT, st.MPI_SOURCE, 1, &ack, 1, MPI_INT, st.MPI_SOURCE, 2,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st); /* expect: DL003, MR001 */
        MPI_Sendrecv(&x, 1, MPI_INT, st.MPI_SOURCE, 4, &ack, 1, MPI_INT, st.MPI_SOURCE, 5,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &st);
        MPI_Sendrecv(&x, 1, MPI_INT, 1, 4, &ack, 1, MPI_INT, 1, 5, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    } else {
        for (int i = 0; i < ROUNDS; i++) {
            x = rank * 1000 + i;
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
        if (rank == 1) usleep(500 * 1000);
        MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
