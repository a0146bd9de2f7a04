/*
 * A program with its own SIGSEGV handler, under --check-buffers: it protects a page of its
 * own and recovers from the fault there, also while a receive is pending and its buffer
 * is protected by mpicheck. Its handler must run exactly as without mpicheck.
 */
/* mpicheck: ranks=2 check-buffers */
/* expect: none */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *guarded;
static long page;
static volatile int faults;

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)ctx;
    char *addr = info->si_addr;
    if (addr < guarded || addr >= guarded + page) abort();
    faults++;
    mprotect(guarded, page, PROT_READ | PROT_WRITE);
}

int main(int argc, char **argv)
{
    int rank, n = 4096, bad = 0;
    MPI_Request req;
    struct sigaction sa;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    page = sysconf(_SC_PAGESIZE);
    guarded = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);

    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) out[i] = rank + i;
    MPI_Irecv(in, n, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &req);
    guarded[10] = 1; /* faults once: the program's handler unprotects its page */
    MPI_Send(out, n, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += in[i] != 1 - rank + i;
    bad += faults != 1 || guarded[10] != 1;
    if (bad) printf("rank %d: %d problems (faults %d)\n", rank, bad, faults);
    free(in);
    free(out);
    MPI_Finalize();
    return bad != 0;
}
