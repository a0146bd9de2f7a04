/*
 * A stall mpicheck cannot prove to be a deadlock, which ends by itself, then a deadlock.
 *
 * argv[1] rounds of an exchange between two ranks (traces long enough to be released),
 * then rank 1 waits in MPI_Recv for rank 0, which polls for two kinds of message in turn
 * (MPI_Iprobe of tag 1, then of tag 2, 1 ms apart: no one blocking call stands for such a
 * loop) until the file argv[2] exists (up to 60 s), then sends what rank 1 waits for.
 * Then both ranks receive from each other first: a deadlock; or, with argv[3] = "finish",
 * rank 0 sends rank 1 four ints that it receives as 16 bytes (TY002), and both end.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    const char *go = argc > 2 ? argv[2] : "/nonexistent";
    int finish = argc > 3 && strcmp(argv[3], "finish") == 0;
    int rank, size, flag, in[4] = {0}, out[4] = {1, 2, 3, 4};
    MPI_Request requests[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    for (long i = 0; i < rounds; i++) {
        int tag = (int)(i % 1000);
        MPI_Irecv(in, 4, MPI_INT, from, tag, MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(out, 4, MPI_INT, peer, tag, MPI_COMM_WORLD, &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    }
    if (rank == 0) {
        for (int polled = 0; access(go, F_OK) != 0 && polled < 30000; polled++) {
            MPI_Iprobe(1, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            MPI_Iprobe(1, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            usleep(1000);
        }
        MPI_Send(out, 4, MPI_INT, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(in, 4, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (finish && rank == 0) {
        MPI_Send(out, 4, MPI_INT, 1, 4, MPI_COMM_WORLD);
    } else if (finish && rank == 1) {
        MPI_Recv(in, 16, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!finish) {
        MPI_Recv(in, 4, MPI_INT, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, 4, MPI_INT, peer, 4, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
