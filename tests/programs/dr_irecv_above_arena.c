/*
 * A load from the buffer of a pending MPI_Irecv (DR002), the buffer mapped right where a
 * malloc arena's heap ends. glibc keeps every arena but the first in a 64 MiB-aligned heap
 * whose unused part is an inaccessible mapping, so a large buffer mapped at the heap's end
 * has an inaccessible neighbour just below it, as a thread's stack has its guard page; it
 * happens to malloc'd buffers when the layout leaves no gap. The buffer is still watched.
 * Each rank checks in /proc/self/maps that its buffer got that neighbour (exit 2 if not).
 */
/* mpicheck: ranks=2 check-buffers cflags=-pthread */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define ARENA_HEAP ((uintptr_t)64 << 20)
#define THREADS 6

static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;

/* A new thread's first malloc makes it an arena of its own; the thread then lives (holding
 * its arena) until main releases it, so the next thread gets a new one. */
static void *arena_owner(void *block)
{
    __atomic_store_n((void **)block, malloc(64), __ATOMIC_RELEASE);
    pthread_mutex_lock(&hold);
    pthread_mutex_unlock(&hold);
    return NULL;
}

/* The mapping just below `addr` is inaccessible and ends at `addr`. */
static int guard_below(uintptr_t addr)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512], perms[8];
    unsigned long lo, hi;
    int found = 0;
    while (maps && fgets(line, sizeof line, maps))
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && hi == addr)
            found = perms[0] == '-' && perms[1] == '-' && perms[2] == '-';
    if (maps) fclose(maps);
    return found;
}

/* `bytes` of memory mapped where an arena's heap ends, or NULL. */
static int *above_an_arena(size_t bytes, pthread_t *threads, void **blocks)
{
    for (int t = 0; t < THREADS; t++) {
        pthread_create(&threads[t], NULL, arena_owner, &blocks[t]);
        while (!__atomic_load_n(&blocks[t], __ATOMIC_ACQUIRE)) sched_yield();
        uintptr_t heap_end = ((uintptr_t)blocks[t] & ~(ARENA_HEAP - 1)) + ARENA_HEAP;
        void *at = mmap((void *)heap_end, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (at == (void *)heap_end && guard_below(heap_end)) return at;
        if (at != MAP_FAILED) munmap(at, bytes);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided, n = 1 << 18, bad = 0;
    volatile int sink = 0;
    size_t bytes = n * sizeof(int);
    pthread_t threads[THREADS];
    void *blocks[THREADS] = {0};
    MPI_Request req;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    pthread_mutex_lock(&hold);
    int *in = above_an_arena(bytes, threads, blocks), *out = malloc(bytes);
    if (!in) {
        fprintf(stderr, "rank %d: no arena heap with room above it\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < n; i++) out[i] = rank * n + i;
    MPI_Irecv(in, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    if (rank == 0) sink = ((volatile int *)in)[n / 2]; /* expect: DR002 */
    MPI_Send(out, n, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) bad += in[i] != peer * n + i;
    if (bad) printf("rank %d: %d wrong elements\n", rank, bad);
    pthread_mutex_unlock(&hold);
    for (int t = 0; t < THREADS && blocks[t]; t++) {
        pthread_join(threads[t], NULL);
        free(blocks[t]);
    }
    munmap(in, bytes);
    free(out);
    MPI_Finalize();
    return bad != 0 || sink < 0;
}
