/*
 * HyPhy's master/worker strings (MPISendString / MPIRecvString, src/core/batchlan.cpp):
 * each message is a length (tag 111) then its characters (tag 112), both standard sends.
 * To receive from any worker, rank 0 polls MPI_Iprobe(MPI_ANY_SOURCE, 111), receives the
 * length with MPI_Recv(MPI_ANY_SOURCE, 111) (a wildcard receive of its own, not a receive
 * from the probed source), then the characters from status.MPI_SOURCE, and replies to
 * that worker; each worker sends ROUNDS results and waits for each reply. Some rounds the
 * first MPI_Iprobe already finds a length (rank 0 is late), others it polls. Whichever
 * worker's length the wildcard receive takes, the receive of the characters and the reply
 * follow it, so every order completes.
 * Expected verdict: MR001 at the wildcard MPI_Iprobe and MPI_Recv, and no potential
 * deadlock (DL003) from a receive of the characters from the recorded source.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <unistd.h>

#define ROUNDS 12

static void send_string(const char *s, long n, int dest)
{
    MPI_Send(&n, 1, MPI_LONG, dest, 111, MPI_COMM_WORLD);
    MPI_Send((void *)s, (int)n, MPI_CHAR, dest, 112, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size, reply = 0;
    char text[64] = "result";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 0; i < ROUNDS * (size - 1); i++) {
            MPI_Status st;
            long n = 0;
            int found = 0;
            if (i % 3 == 2)
                usleep(20 * 1000); /* late: the first probe finds a length */
            while (!found) {
                MPI_Iprobe(MPI_ANY_SOURCE, 111, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE); /* expect: MR001 */
                usleep(100);
            }
            MPI_Recv(&n, 1, MPI_LONG, MPI_ANY_SOURCE, 111, MPI_COMM_WORLD, &st); /* expect: MR001 */
            MPI_Recv(text, (int)n, MPI_CHAR, st.MPI_SOURCE, 112, MPI_COMM_WORLD, &st);
            MPI_Send(&reply, 1, MPI_INT, st.MPI_SOURCE, 113, MPI_COMM_WORLD);
        }
    } else {
        for (int i = 0; i < ROUNDS; i++) {
            usleep(1000 * rank);
            send_string(text, 6, 0);
            MPI_Recv(&reply, 1, MPI_INT, 0, 113, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }

    MPI_Finalize();
    return 0;
}
