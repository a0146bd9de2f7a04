/*
 * A long exchange between two ranks (up to argv[1] rounds of an Irecv, an Isend with a
 * changing tag and a Waitall, a barrier now and then), with a communicator leaked early
 * (RS001) and a receive whose type does not match its send at the end (TY002): what
 * mpicheck reports once the analysis that follows the job has released the traces'
 * beginning.
 *
 * With argv[2], a file name, the run waits for a test: by default the loop pauses 1 ms
 * every 100 rounds, and rank 0 waits after it (up to 60 s) until the file exists (the test
 * makes it once the traces show a release, so that a loaded machine cannot end the job
 * before the analysis got to it). With argv[3] = "until-go", the loop runs without pauses
 * (a job writing its trace as fast as it can) until the file exists, which rank 0 looks for
 * every 1000 rounds and tells rank 1.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    const char *go = argc > 2 ? argv[2] : NULL;
    int until_go = argc > 3 && strcmp(argv[3], "until-go") == 0;
    int rank, size, in[4] = {0}, out[4] = {1, 2, 3, 4};
    MPI_Comm leaked;
    MPI_Request requests[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &leaked);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    for (long i = 0; i < rounds; i++) {
        int tag = (int)(i % 1000);
        MPI_Irecv(in, 4, MPI_INT, from, tag, MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(out, 4, MPI_INT, peer, tag, MPI_COMM_WORLD, &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        if (until_go && i % 1000 == 999) {
            int done = rank == 0 && access(go, F_OK) == 0;
            MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (done)
                break;
        } else if (!until_go && i % 100 == 99) {
            MPI_Barrier(MPI_COMM_WORLD);
            usleep(1000);
        }
    }
    for (int waited = 0; go && !until_go && rank == 0 && access(go, F_OK) != 0 && waited < 6000;
         waited++)
        usleep(10000);
    if (rank == 0)
        MPI_Send(out, 4, MPI_INT, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(in, 16, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
