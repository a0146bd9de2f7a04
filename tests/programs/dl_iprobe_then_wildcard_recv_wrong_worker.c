/*
 * The deadlocking twin of dl_iprobe_then_wildcard_recv_reply_ok.c. Rank 0 waits until a
 * length (tag 111) is there, finds it with one MPI_Iprobe(MPI_ANY_SOURCE), receives it
 * with MPI_Recv(MPI_ANY_SOURCE, 111), tells rank 1 (not the sender: the bug) to go on,
 * and receives the characters (tag 112) from status.MPI_SOURCE; then does the same with
 * rank 2, by name. Each worker posts the receive of its go, sends its length, waits for
 * the go, then sends its characters. Rank 2 sends 500 ms late, so the traced run takes
 * rank 1's length first and completes; had rank 2's length come first, rank 2 would wait
 * for its go, rank 0 for characters, and rank 1 in the send of a length nobody receives.
 * Expected verdict: DL003 (another matching deadlocks) and MR001 at the wildcard
 * MPI_Iprobe and MPI_Recv.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, go = 1;
    long n = 0;
    char text[16] = "result";
    MPI_Status st;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "this program needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        int found = 0;
        usleep(100 * 1000); /* rank 1's length is there: the first probe finds it */
        while (!found) {
            MPI_Iprobe(MPI_ANY_SOURCE, 111, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE); /* expect: MR001 */
            usleep(100);
        }
        MPI_Recv(&n, 1, MPI_LONG, MPI_ANY_SOURCE, 111, MPI_COMM_WORLD, &st); /* expect: DL003, MR001 */
        MPI_Send(&go, 1, MPI_INT, 1, 113, MPI_COMM_WORLD);
        MPI_Recv(text, (int)n, MPI_CHAR, st.MPI_SOURCE, 112, MPI_COMM_WORLD, &st);
        MPI_Recv(&n, 1, MPI_LONG, 2, 111, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&go, 1, MPI_INT, 2, 113, MPI_COMM_WORLD);
        MPI_Recv(text, (int)n, MPI_CHAR, 2, 112, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        n = 6;
        MPI_Irecv(&go, 1, MPI_INT, 0, 113, MPI_COMM_WORLD, &req);
        if (rank == 2)
            usleep(500 * 1000);
        MPI_Send(&n, 1, MPI_LONG, 0, 111, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Send(text, (int)n, MPI_CHAR, 0, 112, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
