/*
 * HyPhy's master/worker strings (MPISendString / MPIRecvString, src/core/batchlan.cpp), as
 * in tests/programs/dl_iprobe_wildcard_recv_then_source_ok.c: a length (tag 111) then the
 * characters (tag 112); the master polls MPI_Iprobe(MPI_ANY_SOURCE, 111), receives the
 * length with MPI_Recv(MPI_ANY_SOURCE, 111), the characters from status.MPI_SOURCE, and
 * sends that worker its next job or a length of 0 that stops it. Here it first has rounds
 * that send every worker a job and then take all their results, as HyPhy's fel does
 * before it farms out sites. Those sends and the replies to status.MPI_SOURCE are one call
 * site (send_string's MPI_Send), which so does not always name the source the latest
 * wildcard took. The program is correct: every matching order completes.
 * Expected verdict: MR001 at the wildcard MPI_Iprobe and MPI_Recv, and no DL003.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>
#include <unistd.h>

#define JOBS 12

static void send_string(const char *s, long n, int dest)
{
    MPI_Send(&n, 1, MPI_LONG, dest, 111, MPI_COMM_WORLD);
    if (n == 0)
        return;
    MPI_Send((void *)s, (int)n, MPI_CHAR, dest, 112, MPI_COMM_WORLD);
}

static int recv_string(char *s, int source)
{
    MPI_Status st;
    long n = 0;
    int found = 0;
    while (!found) {
        MPI_Iprobe(source, 111, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE); /* expect: MR001 */
        usleep(100);
    }
    MPI_Recv(&n, 1, MPI_LONG, source, 111, MPI_COMM_WORLD, &st); /* expect: MR001 */
    MPI_Recv(s, (int)n, MPI_CHAR, st.MPI_SOURCE, 112, MPI_COMM_WORLD, &st);
    return st.MPI_SOURCE;
}

int main(int argc, char **argv)
{
    int rank, size;
    char job[64] = "job", result[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int sent = 0;
        for (int round = 0; round < 3; round++) {
            for (int w = 1; w < size; w++)
                send_string(job, 4, w);
            for (int w = 1; w < size; w++)
                recv_string(result, MPI_ANY_SOURCE);
        }
        for (int w = 1; w < size && sent < JOBS; w++, sent++)
            send_string(job, 4, w);
        for (int done = 0; done < JOBS; done++) {
            int worker = recv_string(result, MPI_ANY_SOURCE);
            /* the next job, or an empty string that stops the worker */
            send_string(job, sent < JOBS ? 4 : 0, worker);
            if (sent < JOBS)
                sent++;
        }
    } else {
        for (;;) {
            long n = 0;
            MPI_Status st;
            int found = 0;
            while (!found) {
                MPI_Iprobe(0, 111, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
                usleep(100);
            }
            MPI_Recv(&n, 1, MPI_LONG, 0, 111, MPI_COMM_WORLD, &st);
            if (n == 0)
                break;
            MPI_Recv(result, (int)n, MPI_CHAR, 0, 112, MPI_COMM_WORLD, &st);
            usleep(1000 * rank);
            send_string("done", 4, 0);
        }
    }

    MPI_Finalize();
    return 0;
}
