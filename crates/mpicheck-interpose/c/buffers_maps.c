/* Buffer checking (buffers.c): which memory may be protected, and the interface's empty
 * stand-ins where the mode cannot run (not x86-64 Linux). Only a private read-write
 * mapping that is not a thread's stack, nor near a thread pointer (static TLS), found in
 * /proc/self/maps and cached. */
#define _GNU_SOURCE
#include "have.h"
#include "mpicheck_interpose.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__linux__)

#define MAX_SPANS 32
/* Bytes below a thread pointer that hold the thread's static TLS (never protected). */
#define TLS_MARGIN ((uintptr_t)1 << 20)

/* glibc's malloc arenas other than the main one live in heaps of this size, aligned to it: the
 * used part read-write from the aligned start, the rest reserved inaccessible up to the next
 * boundary (HEAP_MAX_SIZE on 64-bit). */
#define ARENA_HEAP_BYTES ((uintptr_t)64 << 20)

/* Mappings found to be private read-write memory that is not a stack (ok = 1) or not
 * (ok = 0), cached: /proc/self/maps is read only for memory not seen before. */
static struct {
    uintptr_t lo, hi;
    int ok;
} spans[MAX_SPANS];
static unsigned spans_next;

/* ---- which memory may be protected ------------------------------------------------------ */

/* 1 or 0 when a cached mapping holds [lo, hi), -1 when none does. */
static int in_span_cache(uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < MAX_SPANS; i++)
        if (spans[i].lo <= lo && hi <= spans[i].hi && spans[i].hi) return spans[i].ok;
    return -1;
}

/* The inaccessible mapping [guard_lo, guard_hi), with the read-write mapping [below_lo,
 * below_hi) under it, is the reserved tail of a malloc arena's heap, not a thread's stack
 * guard: the two fill one aligned heap. Memory mapped right above such a tail (a large
 * malloc'd buffer, when the layout leaves no gap) is not a stack. */
static int arena_heap_tail(uintptr_t below_lo, uintptr_t below_hi, int below_rw, uintptr_t guard_lo,
                           uintptr_t guard_hi)
{
    return below_rw && below_hi == guard_lo && below_lo % ARENA_HEAP_BYTES == 0 &&
           guard_hi == below_lo + ARENA_HEAP_BYTES;
}

/* [lo, hi) lies in one private read-write mapping that is not a stack: not [stack], and not
 * right above an inaccessible guard mapping (glibc's thread stacks, which also hold the
 * thread's TLS), unless that mapping is an arena heap's tail. From /proc/self/maps;
 * positive answers are cached. */
int mpicheck_buffers_private_rw(uintptr_t lo, uintptr_t hi)
{
    int cached = in_span_cache(lo, hi);
    if (cached >= 0) return cached;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[8192];
    size_t have = 0;
    int ok = 0, done = 0;
    /* The two mappings before the current line's. */
    uintptr_t prev_lo = 0, prev_hi = 0, below_lo = 0, below_hi = 0;
    int prev_guard = 0, prev_rw = 0, below_rw = 0;
    while (!done) {
        ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n <= 0) break;
        have += (size_t)n;
        buf[have] = 0;
        char *line = buf;
        char *nl;
        while ((nl = strchr(line, '\n'))) {
            *nl = 0;
            unsigned long s, e;
            char perms[8] = {0};
            if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3) {
                if (s <= lo && hi <= e) {
                    int guarded = prev_guard && prev_hi == s &&
                                  !arena_heap_tail(below_lo, below_hi, below_rw, prev_lo, prev_hi);
                    ok = strcmp(perms, "rw-p") == 0 && !guarded && !strstr(line, "[stack");
                    unsigned i = spans_next++ % MAX_SPANS;
                    spans[i].lo = s;
                    spans[i].hi = e;
                    spans[i].ok = ok;
                    done = 1;
                    break;
                }
                below_lo = prev_lo, below_hi = prev_hi, below_rw = prev_rw;
                prev_lo = s, prev_hi = e;
                prev_guard = strcmp(perms, "---p") == 0;
                prev_rw = strcmp(perms, "rw-p") == 0;
            }
            line = nl + 1;
        }
        have = (size_t)(buf + have - line);
        memmove(buf, line, have);
    }
    close(fd);
    return ok;
}

int mpicheck_buffers_near_tls(uintptr_t lo, uintptr_t hi, uintptr_t tp, uintptr_t page_size)
{
    return tp && lo < tp + page_size && hi + TLS_MARGIN > tp;
}

#else /* not x86-64 Linux (buffers.c is empty there): the trap flag and the fault's access kind are x86-64's */

void mpicheck_buffers_prepare(void) {}
void mpicheck_buffers_enter(void) {}
void mpicheck_buffers_leave(void) {}
int mpicheck_buffers_contiguous(MPI_Datatype type, int64_t *size, int64_t *true_lb)
{
    (void)type, (void)size, (void)true_lb;
    return 0;
}
void mpicheck_buffers_unwatched(void) {}
void mpicheck_buffers_watch(uintptr_t start, uintptr_t end, int kind, MPI_Request req, MPI_Win win, int target,
                            int recv, const void *site)
{
    (void)start, (void)end, (void)kind, (void)req, (void)win, (void)target, (void)recv, (void)site;
}
void mpicheck_buffers_post(const void *buf, int64_t count, MPI_Datatype type, MPI_Request req, int recv,
                           const void *site)
{
    (void)buf, (void)count, (void)type, (void)req, (void)recv, (void)site;
}
void mpicheck_buffers_persistent(const void *buf, int64_t count, MPI_Datatype type, MPI_Request req, int recv)
{
    (void)buf, (void)count, (void)type, (void)req, (void)recv;
}
void mpicheck_buffers_started(const MPI_Request *reqs, int n, const void *site)
{
    (void)reqs, (void)n, (void)site;
}
void mpicheck_buffers_forget(MPI_Request req) { (void)req; }
void mpicheck_buffers_capture(MPI_Request req, int on) { (void)req, (void)on; }
void mpicheck_buffers_window(MPI_Win win, const void *base, int64_t size) { (void)win, (void)base, (void)size; }
void mpicheck_buffers_window_gone(MPI_Win win, const void *base) { (void)win, (void)base; }
void mpicheck_buffers_rma(const void *buf, int64_t count, MPI_Datatype type, int target, MPI_Win win, int recv,
                          const void *site)
{
    (void)buf, (void)count, (void)type, (void)target, (void)win, (void)recv, (void)site;
}
void mpicheck_buffers_epoch_end(MPI_Win win, int target, int all) { (void)win, (void)target, (void)all; }

uint64_t mpicheck_buffers_mark(const MPI_Request *reqs, int n)
{
    (void)reqs, (void)n;
    return 0;
}
void mpicheck_buffers_settle(const MPI_Request *reqs, int n, uint64_t mark, int ok, int all, int ndone,
                             const int *done)
{
    (void)reqs, (void)n, (void)mark, (void)ok, (void)all, (void)ndone, (void)done;
}
void mpicheck_buffers_completed(MPI_Request req) { (void)req; }
void mpicheck_buffers_flush(void) {}
void mpicheck_buffers_finalized(void) {}

#endif
