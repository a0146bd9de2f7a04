/* Hot path of the interposition library: loops of cheap MPI calls, timed per call: MPI_Send /
 * MPI_Recv to and from MPI_PROC_NULL, MPI_Comm_rank, and a real exchange with oneself
 * (MPI_Irecv + MPI_Isend to self + MPI_Waitall: three calls per message).
 * Driven by benches/hot_path.sh, which runs it plainly and with the library preloaded.
 *
 *   hot_path [N] [OPS]    N iterations per operation (default 10000000); OPS is a comma list
 *                         of send,recv,rank,exchange,heapexchange,heappoll,persistent,
 *                         iallreduce (default the first four; heapexchange is exchange with
 *                         malloc'd buffers; heappoll the same with 8 MPI_Test calls on the
 *                         pending receive before the send; persistent: the same with a persistent receive and send,
 *                         MPI_Startall + MPI_Waitall; iallreduce: MPI_Iallreduce of one int +
 *                         MPI_Wait, heap buffers; rmaput: MPI_Put of one int to oneself +
 *                         MPI_Win_flush in a lock_all epoch, origin and window on their
 *                         own pages). Every rank runs the loops;
 *                         rank 0 prints one line per operation: "op <name> <ns per call>
 *                         <user ns> <kernel ns>" (the slowest rank's wall time, and rank 0's
 *                         calling thread's CPU time; exchange: N calls in N/3 messages, per
 *                         MPI call). */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* CPU time of the calling thread in user space and in the kernel (page faults, syscalls), ns. */
static void thread_cpu_ns(double *user, double *sys)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    *user = ru.ru_utime.tv_sec * 1e9 + ru.ru_utime.tv_usec * 1e3;
    *sys = ru.ru_stime.tv_sec * 1e9 + ru.ru_stime.tv_usec * 1e3;
}

static double run(const char *op, long n)
{
    int v = 0, r, self;
    MPI_Status st;
    MPI_Request req[2];
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    if (!strcmp(op, "exchange") || !strcmp(op, "heapexchange")) n = n / 3 > 0 ? n / 3 : 1;
    if (!strcmp(op, "heappoll")) n = n / 11 > 0 ? n / 11 : 1;
    if (!strcmp(op, "persistent") || !strcmp(op, "iallreduce") || !strcmp(op, "rmaput")) n = n / 2 > 0 ? n / 2 : 1;
    double t0 = now_ns();
    if (!strcmp(op, "send"))
        for (long i = 0; i < n; i++) MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "recv"))
        for (long i = 0; i < n; i++) MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    else if (!strcmp(op, "exchange")) {
        for (long i = 0; i < n; i++) {
            MPI_Irecv(&r, 1, MPI_INT, self, 0, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(&v, 1, MPI_INT, self, 0, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
        return (now_ns() - t0) / (3.0 * n);
    } else if (!strcmp(op, "heapexchange")) {
        /* As exchange, with heap buffers (--check-buffers watches them; not stack ones). */
        int *hs = malloc(sizeof *hs), *hr = malloc(sizeof *hr);
        for (long i = 0; i < n; i++) {
            MPI_Irecv(hr, 1, MPI_INT, self, 0, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(hs, 1, MPI_INT, self, 0, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
        free(hs);
        free(hr);
        return (now_ns() - t0) / (3.0 * n);
    } else if (!strcmp(op, "heappoll")) {
        /* A polling loop: heapexchange with 8 MPI_Test calls on the pending receive before
         * the send is posted (11 calls per message; both buffers watched meanwhile). */
        int *hs = malloc(sizeof *hs), *hr = malloc(sizeof *hr), flag;
        for (long i = 0; i < n; i++) {
            MPI_Irecv(hr, 1, MPI_INT, self, 0, MPI_COMM_WORLD, &req[0]);
            for (int k = 0; k < 8; k++) MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
            MPI_Isend(hs, 1, MPI_INT, self, 0, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
        free(hs);
        free(hr);
        return (now_ns() - t0) / (11.0 * n);
    } else if (!strcmp(op, "persistent")) {
        int *hs = malloc(sizeof *hs), *hr = malloc(sizeof *hr);
        MPI_Recv_init(hr, 1, MPI_INT, self, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Send_init(hs, 1, MPI_INT, self, 0, MPI_COMM_WORLD, &req[1]);
        t0 = now_ns();
        for (long i = 0; i < n; i++) {
            MPI_Startall(2, req);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
        double t = (now_ns() - t0) / (2.0 * n);
        MPI_Request_free(&req[0]);
        MPI_Request_free(&req[1]);
        free(hs);
        free(hr);
        return t;
    } else if (!strcmp(op, "iallreduce")) {
        int *hs = malloc(sizeof *hs), *hr = malloc(sizeof *hr);
        *hs = 1;
        for (long i = 0; i < n; i++) {
            MPI_Iallreduce(hs, hr, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        }
        free(hs);
        free(hr);
        return (now_ns() - t0) / (2.0 * n);
    } else if (!strcmp(op, "rmaput")) {
        int *mem, *org = aligned_alloc(4096, 4096);
        MPI_Win win;
        MPI_Win_allocate(4096, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &mem, &win);
        MPI_Win_lock_all(0, win);
        t0 = now_ns();
        for (long i = 0; i < n; i++) {
            MPI_Put(org, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Win_flush(0, win);
        }
        double t = (now_ns() - t0) / (2.0 * n);
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
        free(org);
        return t;
    } else
        for (long i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    char ops[256];
    snprintf(ops, sizeof ops, "%s", argc > 2 ? argv[2] : "send,recv,rank,exchange");
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (char *op = strtok(ops, ","); op; op = strtok(NULL, ",")) {
        run(op, n / 100 + 1); /* warm up: code, TLB, first trace pages */
        MPI_Barrier(MPI_COMM_WORLD);
        double u0, s0, u1, s1;
        thread_cpu_ns(&u0, &s0);
        double t = run(op, n), worst;
        thread_cpu_ns(&u1, &s1);
        /* the slowest rank: with -n 2 both ranks share the 2 cores */
        MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        /* and rank 0's calling thread's CPU time per call, user and kernel (not the helper
         * thread's, which populates trace pages in parallel) */
        if (rank == 0) printf("op %s %.2f %.2f %.2f\n", op, worst, (u1 - u0) / n, (s1 - s0) / n);
    }
    MPI_Finalize();
    return 0;
}
