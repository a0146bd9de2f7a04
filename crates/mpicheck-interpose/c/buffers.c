/* Buffer checking (`mpicheck run --check-buffers`, MPICHECK_CHECK_BUFFERS=1): loads and stores
 * of the program into the buffer of a pending nonblocking send or receive, found with page
 * protection. Design and limits: docs/buffer-checking.md.
 *
 * - After MPI_Isend/MPI_Irecv (and the other nonblocking sends) returns, the buffer's bytes
 *   are watched when its datatype is contiguous and its memory is a private read-write
 *   mapping that is not a thread's stack or TLS; otherwise it is counted as unwatched.
 * - While no thread is inside MPI, the pages of watched buffers are protected: send buffers
 *   read-only, receive buffers inaccessible on the pages they cover whole and read-only on
 *   their first and last page (a system call of the program on a neighbour of the buffer
 *   would fail with EFAULT on an inaccessible page instead of faulting). Every outermost MPI
 *   call unprotects all of them first (MPI reads and writes them, also through system calls),
 *   and the last thread leaving MPI protects them again.
 * - The SIGSEGV handler looks up the faulting address. An access to the buffer's own bytes
 *   by a thread outside MPI is written to a ring of fixed slots (async-signal-safe) and the
 *   buffer is no longer watched; an access to a neighbour on the same page is let through
 *   by unprotecting the page and single-stepping the instruction (trap flag, then SIGTRAP
 *   protects it again). Faults that are not ours go to the handler the program had.
 * - Those neighbour faults are counted per call site of the call that made the buffer
 *   pending; a site whose buffers cost more than its budget of them is given up: its pending
 *   buffers are no longer watched, nor are the ones it posts later (counted apart, with the
 *   site, so the report says why), and so is every site once the process exceeds its own.
 * - The calls that complete requests (Wait/Test families, Request_free, a true
 *   Request_get_status) end the watch; findings become MPICHECK_Access records at the next
 *   MPI call. Only x86-64 Linux: elsewhere the mode stays off.
 * The signal handlers and the budget live in buffers_faults.c, the state both use in
 * buffers_internal.h. */
#define _GNU_SOURCE
#include "have.h"
#include "mpicheck_interpose.h"

#include <cpuid.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

int mpicheck_buffers_on;

#if defined(__x86_64__) && defined(__linux__)

#include "buffers_internal.h"

extern const uint16_t mpicheck_access_id;
extern const uint16_t mpicheck_buffers_id;
extern const uint16_t mpicheck_given_up_id;

#define MAX_PERSISTENT 256
#define MAX_WINDOWS 64
/* Larger buffers are not watched: protecting them costs a page-table walk per MPI call. */
#define MAX_WATCHED_BYTES ((uintptr_t)1 << 30)

struct watched watched[MAX_WATCHED];
int watched_end;
struct finding findings[MAX_FINDINGS];
struct stepper steppers[MAX_STEPPERS];
struct released_pages released[MAX_RELEASED];
static unsigned released_next;

int lock_word;
int lock_owner;
static int threads_in_mpi;
int protected_now;
uintptr_t page_size;
static uintptr_t main_thread_pointer;
unsigned findings_claimed;
unsigned findings_flushed;
static int flushing;
static uint64_t next_mark;
uint64_t count_watched, count_dropped, count_given_up;
static uint64_t count_unwatched;

/* Persistent point-to-point requests (MPI_Send_init ...): the bytes each MPI_Start watches,
 * found when the request was made (its datatype may be freed before a start). Under the lock. */
static struct {
    int used;
    int watchable; /* 1: contiguous, 0: not watched (counted at each start), -1: nothing to watch */
    int recv;
    MPI_Request req;
    uintptr_t start, end;
} persistent[MAX_PERSISTENT];

/* Persistent collectives (MPI_Bcast_init ...): the ranges the nonblocking collective's
 * watch would take, found when the request was made (while `capturing` is set in the
 * thread making it) and watched from each start. Under the lock. */
#define MAX_COLL_RANGES 256
static struct {
    int used;
    int recv;
    MPI_Request req;
    uintptr_t start, end;
} coll_ranges[MAX_COLL_RANGES];
static __thread int capturing __attribute__((tls_model("initial-exec")));

/* The local memory of the process's RMA windows (MPI_Win_create, _allocate, _attach): other
 * processes may write it at any time, also through system calls (process_vm_writev) that a
 * protected page would make fail, so no watched buffer may share a page with it. Under the
 * lock; once the table overflowed nothing more is watched. */
static struct {
    int used;
    MPI_Win win;
    uintptr_t lo, hi; /* page-aligned */
} windows[MAX_WINDOWS];
static int windows_overflow;

/* Memory protection keys (x86 PKU; docs/buffer-checking.md, "The choice"). Watched pages
 * carry one of two keys from post to completion; each thread's PKRU register denies them
 * while the thread is outside MPI (stores for key_send, every access for key_recv) and
 * allows them while it is inside, so a thread in MPI does not open the buffers to the
 * others. A new thread inherits its creator's PKRU: the program's threads start denied, the
 * threads MPI starts inside a call start allowed. The kernel checks keys on this process's
 * own accesses only (also in its system calls), not on another process's
 * process_vm_readv/writev. Without keys (pkey_alloc fails, or
 * MPICHECK_BUFFERS_MECHANISM=mprotect), page protection switched at every MPI call. */
int pkeys_on;
int key_send, key_recv;
uint32_t key_mask, key_deny;
uintptr_t pkru_offset;

static __thread int cached_tid __attribute__((tls_model("initial-exec")));

static int my_tid(void)
{
    if (!cached_tid) cached_tid = current_tid();
    return cached_tid;
}

static uintptr_t thread_pointer(void)
{
    uintptr_t tp;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    return tp;
}

/* ---- protections (under the lock) ----------------------------------------------------- */

static int stepping_on(uintptr_t page)
{
    for (int i = 0; i < MAX_STEPPERS; i++)
        if (steppers[i].tid && steppers[i].page == page) return 1;
    return 0;
}

/* What a page must allow now. */
int buffers_page_prot(uintptr_t page)
{
    int prot = PROT_READ | PROT_WRITE;
    if (threads_in_mpi > 0 || stepping_on(page) || buffers_lifted(page)) return prot;
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (!w->used || w->reported || page < w->page_lo || page >= w->page_hi) continue;
        if (w->recv && !w->readable && page >= w->start && page + page_size <= w->end) return PROT_NONE;
        prot = PROT_READ;
    }
    return prot;
}

/* The key a page must carry now: key_recv where a receive buffer covers it whole, key_send
 * on other pages of watched buffers (their first and last page may hold other data, which a
 * system call of the program must still reach), 0 elsewhere. */
int buffers_page_key(uintptr_t page)
{
    int key = 0;
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (!w->used || w->reported || page < w->page_lo || page >= w->page_hi) continue;
        if (w->recv && page >= w->start && page + page_size <= w->end) return key_recv;
        key = key_send;
    }
    return key;
}

static void apply_keys(uintptr_t lo, uintptr_t hi)
{
    uintptr_t run = lo;
    int run_key = -1;
    for (uintptr_t p = lo; p < hi; p += page_size) {
        int key = buffers_page_key(p);
        if (key != run_key) {
            if (run_key >= 0) pkey_mprotect((void *)run, p - run, PROT_READ | PROT_WRITE, run_key);
            run = p;
            run_key = key;
        }
    }
    if (run_key >= 0) pkey_mprotect((void *)run, hi - run, PROT_READ | PROT_WRITE, run_key);
}

/* Sets every page of [lo, hi) to what it must allow, one mprotect per run of equal pages. */
void buffers_apply(uintptr_t lo, uintptr_t hi)
{
    if (pkeys_on) {
        apply_keys(lo, hi);
        return;
    }
    uintptr_t run = lo;
    int run_prot = -1;
    for (uintptr_t p = lo; p < hi; p += page_size) {
        int prot = buffers_page_prot(p);
        if (prot != run_prot) {
            if (run_prot >= 0) mprotect((void *)run, p - run, run_prot);
            run = p;
            run_prot = prot;
        }
    }
    if (run_prot >= 0) mprotect((void *)run, hi - run, run_prot);
}

void buffers_release(struct watched *w)
{
    w->used = 0;
    while (watched_end > 0 && !watched[watched_end - 1].used) watched_end--;
    unsigned r = released_next++ % MAX_RELEASED;
    released[r].lo = w->page_lo;
    released[r].hi = w->page_hi;
    if (protected_now || pkeys_on) buffers_apply(w->page_lo, w->page_hi);
}

/* ---- the interface of the wrappers ------------------------------------------------------ */

/* Two keys, from the library's constructor: the threads the program starts later inherit
 * the denied keys, the threads MPI starts inside a call the allowed ones. */
static void prepare_pkeys(void)
{
    const char *mechanism = getenv("MPICHECK_BUFFERS_MECHANISM");
    if (mechanism && strcmp(mechanism, "mprotect") == 0) return;
    unsigned size, offset, ecx, edx;
    if (!__get_cpuid_count(0xd, 9, &size, &offset, &ecx, &edx) || size < 4 || offset < 576) return;
    int send = pkey_alloc(0, 0);
    if (send < 0) return;
    int recv = pkey_alloc(0, 0);
    if (recv < 0) {
        pkey_free(send);
        return;
    }
    key_send = send;
    key_recv = recv;
    key_mask = PKRU_AD(send) | PKRU_WD(send) | PKRU_AD(recv) | PKRU_WD(recv);
    key_deny = PKRU_WD(send) | PKRU_AD(recv);
    pkru_offset = offset;
    pkeys_on = 1;
    write_pkru((read_pkru() & ~key_mask) | key_deny);
}

void mpicheck_buffers_prepare(void)
{
    const char *on = getenv("MPICHECK_CHECK_BUFFERS");
    if (!on || strcmp(on, "1") != 0) return;
    page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    main_thread_pointer = thread_pointer();
    const char *budget = getenv("MPICHECK_BUFFERS_NEIGHBOUR_BUDGET");
    if (budget && *budget) {
        site_budget = strtoull(budget, NULL, 10);
        process_budget = site_budget * PROCESS_BUDGET_SITES;
    }
    prepare_pkeys();
    mpicheck_buffers_on = 1;
}

void mpicheck_buffers_enter(void)
{
    mpicheck_buffers_flush();
    if (pkeys_on) {
        write_pkru(read_pkru() & ~key_mask);
        return;
    }
    int me = my_tid();
    lock(me);
    if (threads_in_mpi++ == 0 && protected_now) {
        protected_now = 0;
        for (int i = 0; i < watched_end; i++) {
            struct watched *w = &watched[i];
            if (w->used) mprotect((void *)w->page_lo, w->page_hi - w->page_lo, PROT_READ | PROT_WRITE);
        }
    }
    unlock();
}

void mpicheck_buffers_leave(void)
{
    int me = my_tid();
    if (pkeys_on) {
        if (__atomic_load_n(&watched_end, __ATOMIC_RELAXED)) {
            /* The program may have replaced our handlers since. */
            lock(me);
            buffers_install_handlers();
            unlock();
        }
        write_pkru((read_pkru() & ~key_mask) | key_deny);
        return;
    }
    lock(me);
    if (--threads_in_mpi == 0) {
        int any = 0;
        for (int i = 0; i < watched_end && !any; i++) any = watched[i].used && !watched[i].reported;
        if (any) {
            buffers_install_handlers();
            protected_now = 1;
            for (int i = 0; i < watched_end; i++) {
                struct watched *w = &watched[i];
                if (w->used && !w->reported) buffers_apply(w->page_lo, w->page_hi);
            }
        }
    }
    unlock();
}

int mpicheck_buffers_contiguous(MPI_Datatype type, int64_t *size, int64_t *true_lb)
{
    /* The bytes MPI uses are then exactly [buf + true_lb, + count * size). */
    int sz;
    MPI_Aint lb, extent, tlb, true_extent;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &sz) != MPI_SUCCESS || sz <= 0 ||
        PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(type, &tlb, &true_extent) != MPI_SUCCESS || true_extent != sz || extent != sz)
        return 0;
    *size = sz;
    *true_lb = tlb;
    return 1;
}

/* The bytes of count elements of a contiguous datatype at buf: 1, 0 when the layout is not
 * known to be contiguous or too large, -1 when there is nothing to watch. */
static int layout(const void *buf, int64_t count, MPI_Datatype type, uintptr_t *start, uintptr_t *end)
{
    if (count <= 0 || buf == NULL || buf == MPI_BOTTOM) return -1;
    int64_t size, true_lb;
    if (!mpicheck_buffers_contiguous(type, &size, &true_lb) || (uint64_t)count > MAX_WATCHED_BYTES / (uint64_t)size)
        return 0;
    *start = (uintptr_t)buf + (uintptr_t)true_lb;
    *end = *start + (uintptr_t)count * (uintptr_t)size;
    return 1;
}

void mpicheck_buffers_unwatched(void)
{
    __atomic_fetch_add(&count_unwatched, 1, __ATOMIC_RELAXED);
}

void mpicheck_buffers_watch(uintptr_t start, uintptr_t end, int kind, MPI_Request req, MPI_Win win, int target,
                            int recv, const void *site)
{
    if (end <= start) return;
    if (capturing) {
        lock(my_tid());
        int slot = -1;
        for (int i = 0; i < MAX_COLL_RANGES && slot < 0; i++)
            if (!coll_ranges[i].used) slot = i;
        if (slot >= 0) {
            coll_ranges[slot].used = 1;
            coll_ranges[slot].recv = recv;
            coll_ranges[slot].req = req;
            coll_ranges[slot].start = start;
            coll_ranges[slot].end = end;
        } else {
            count_unwatched++;
        }
        unlock();
        return;
    }
    uintptr_t page_lo = start & ~(page_size - 1);
    uintptr_t page_hi = (end + page_size - 1) & ~(page_size - 1);
    if (end - start > MAX_WATCHED_BYTES || (recv == MPICHECK_RECV_REMOTE && !pkeys_on) || mpicheck_buffers_near_tls(page_lo, page_hi, thread_pointer(), page_size) ||
        mpicheck_buffers_near_tls(page_lo, page_hi, main_thread_pointer, page_size) ||
        !mpicheck_buffers_private_rw(page_lo, page_hi)) {
        mpicheck_buffers_unwatched();
        return;
    }
    lock(my_tid());
    int budget = buffers_site_slot(site);
    if (sites[budget].over || process_over) {
        sites[budget].given_up++;
        count_given_up++;
        unlock();
        return;
    }
    int near_window = windows_overflow;
    for (int i = 0; i < MAX_WINDOWS && !near_window; i++)
        near_window = windows[i].used && page_lo < windows[i].hi && windows[i].lo < page_hi;
    struct watched *slot = NULL;
    for (int i = 0; i < MAX_WATCHED && !slot && !near_window; i++)
        if (!watched[i].used) slot = &watched[i];
    if (slot) {
        if (slot - watched >= watched_end) watched_end = (int)(slot - watched) + 1;
        slot->used = 1;
        slot->recv = recv != 0;
        slot->readable = recv == MPICHECK_RECV_READABLE;
        slot->reported = 0;
        slot->kind = kind;
        slot->req = req;
        slot->win = win;
        slot->target = target;
        slot->mark = 0;
        slot->start = start;
        slot->end = end;
        slot->page_lo = page_lo;
        slot->page_hi = page_hi;
        slot->site = site;
        slot->budget = budget;
        count_watched++;
        if (pkeys_on) {
            buffers_install_handlers();
            buffers_apply(page_lo, page_hi);
        }
    } else {
        count_unwatched++;
    }
    unlock();
}

void mpicheck_buffers_post(const void *buf, int64_t count, MPI_Datatype type, MPI_Request req, int recv,
                           const void *site)
{
    if (req == MPI_REQUEST_NULL) return;
    uintptr_t start, end;
    int known = layout(buf, count, type, &start, &end);
    if (known == 0) mpicheck_buffers_unwatched();
    if (known <= 0) return;
    mpicheck_buffers_watch(start, end, MPICHECK_WATCH_REQUEST, req, MPI_WIN_NULL, 0, recv, site);
}

void mpicheck_buffers_persistent(const void *buf, int64_t count, MPI_Datatype type, MPI_Request req, int recv)
{
    if (req == MPI_REQUEST_NULL) return;
    uintptr_t start = 0, end = 0;
    int known = layout(buf, count, type, &start, &end);
    lock(my_tid());
    /* The handle of a request freed where no hook saw it (a Fortran MPI_Request_free) may
     * come back: its old entry is replaced. */
    int slot = -1;
    for (int i = 0; i < MAX_PERSISTENT && slot < 0; i++)
        if (persistent[i].used && persistent[i].req == req) slot = i;
    for (int i = 0; i < MAX_PERSISTENT && slot < 0; i++)
        if (!persistent[i].used) slot = i;
    for (int i = 0; i < MAX_COLL_RANGES; i++)
        if (coll_ranges[i].used && coll_ranges[i].req == req) coll_ranges[i].used = 0;
    if (slot >= 0) {
        persistent[slot].used = 1;
        persistent[slot].watchable = known;
        persistent[slot].recv = recv;
        persistent[slot].req = req;
        persistent[slot].start = start;
        persistent[slot].end = end;
    } else if (known >= 0) {
        count_unwatched++;
    }
    unlock();
}

void mpicheck_buffers_capture(MPI_Request req, int on)
{
    if (on) mpicheck_buffers_forget(req); /* a handle that comes back */
    capturing = on;
}

/* The ranges of the persistent collective request req, from its start to its completion. */
static void start_collective(MPI_Request req, const void *site)
{
    struct {
        int recv;
        uintptr_t start, end;
    } found[32];
    int n = 0;
    lock(my_tid());
    for (int i = 0; i < MAX_COLL_RANGES && n < 32; i++)
        if (coll_ranges[i].used && coll_ranges[i].req == req) {
            found[n].recv = coll_ranges[i].recv;
            found[n].start = coll_ranges[i].start;
            found[n].end = coll_ranges[i].end;
            n++;
        }
    unlock();
    for (int i = 0; i < n; i++)
        mpicheck_buffers_watch(found[i].start, found[i].end, MPICHECK_WATCH_PERSISTENT, req, MPI_WIN_NULL, 0,
                               found[i].recv, site);
}

void mpicheck_buffers_started(const MPI_Request *reqs, int n, const void *site)
{
    for (int j = 0; reqs && j < n; j++) {
        if (reqs[j] == MPI_REQUEST_NULL) continue;
        start_collective(reqs[j], site);
        int watchable = -1, recv = 0;
        uintptr_t start = 0, end = 0;
        lock(my_tid());
        for (int i = 0; i < MAX_PERSISTENT; i++)
            if (persistent[i].used && persistent[i].req == reqs[j]) {
                watchable = persistent[i].watchable;
                recv = persistent[i].recv;
                start = persistent[i].start;
                end = persistent[i].end;
                break;
            }
        unlock();
        /* Not a persistent point-to-point request (a persistent collective, a partitioned
         * one, or one made when the table was full and counted then). */
        if (watchable == 0) mpicheck_buffers_unwatched();
        if (watchable == 1) mpicheck_buffers_watch(start, end, MPICHECK_WATCH_PERSISTENT, reqs[j], MPI_WIN_NULL, 0, recv, site);
    }
}

void mpicheck_buffers_forget(MPI_Request req)
{
    if (req == MPI_REQUEST_NULL) return;
    lock(my_tid());
    for (int i = 0; i < MAX_PERSISTENT; i++)
        if (persistent[i].used && persistent[i].req == req) persistent[i].used = 0;
    for (int i = 0; i < MAX_COLL_RANGES; i++)
        if (coll_ranges[i].used && coll_ranges[i].req == req) coll_ranges[i].used = 0;
    unlock();
}

void mpicheck_buffers_window(MPI_Win win, const void *base, int64_t size)
{
    if (win == MPI_WIN_NULL || base == NULL || size <= 0) return;
    uintptr_t lo = (uintptr_t)base & ~(page_size - 1);
    uintptr_t hi = ((uintptr_t)base + (uintptr_t)size + page_size - 1) & ~(page_size - 1);
    lock(my_tid());
    int slot = -1;
    for (int i = 0; i < MAX_WINDOWS && slot < 0; i++)
        if (!windows[i].used) slot = i;
    if (slot < 0) {
        windows_overflow = 1;
    } else {
        windows[slot].used = 1;
        windows[slot].win = win;
        windows[slot].lo = lo;
        windows[slot].hi = hi;
    }
    /* Buffers already watched on these pages stop being protected. */
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (w->used && w->page_lo < hi && lo < w->page_hi) buffers_release(w);
    }
    unlock();
}

void mpicheck_buffers_window_gone(MPI_Win win, const void *base)
{
    lock(my_tid());
    for (int i = 0; i < MAX_WINDOWS; i++)
        if (windows[i].used && windows[i].win == win &&
            (base == NULL || windows[i].lo == ((uintptr_t)base & ~(page_size - 1))))
            windows[i].used = 0;
    unlock();
}

void mpicheck_buffers_rma(const void *buf, int64_t count, MPI_Datatype type, int target, MPI_Win win, int recv,
                          const void *site)
{
    if (target == MPI_PROC_NULL) return; /* no effect: the buffer is not used */
    uintptr_t start, end;
    int known = layout(buf, count, type, &start, &end);
    if (known == 0) mpicheck_buffers_unwatched();
    if (known <= 0) return;
    mpicheck_buffers_watch(start, end, MPICHECK_WATCH_EPOCH, MPI_REQUEST_NULL, win, target, recv, site);
}

void mpicheck_buffers_epoch_end(MPI_Win win, int target, int all)
{
    if (!__atomic_load_n(&watched_end, __ATOMIC_RELAXED)) return;
    lock(my_tid());
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (w->used && w->kind == MPICHECK_WATCH_EPOCH && w->win == win && (all || w->target == target)) buffers_release(w);
    }
    unlock();
}

uint64_t mpicheck_buffers_mark(const MPI_Request *reqs, int n)
{
    if (!reqs || n <= 0 || !__atomic_load_n(&watched_end, __ATOMIC_RELAXED)) return 0;
    lock(my_tid());
    uint64_t mark = ++next_mark;
    int any = 0;
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (!w->used || w->kind == MPICHECK_WATCH_EPOCH) continue;
        for (int j = 0; j < n; j++)
            if (reqs[j] == w->req) {
                w->mark = mark;
                any = 1;
                break;
            }
    }
    unlock();
    return any ? mark : 0;
}

/* After a call that may complete requests: an immediate request no longer in the array was
 * completed and freed. A persistent one keeps its handle: it completed when the call says so
 * (ok: the call succeeded; all: it completed every request; else the positions in done[]),
 * and a failed call ends its watch too (unsure: not protected). */
void mpicheck_buffers_settle(const MPI_Request *reqs, int n, uint64_t mark, int ok, int all, int ndone,
                             const int *done)
{
    lock(my_tid());
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (!w->used || w->mark != mark) continue;
        w->mark = 0;
        int at = -1;
        for (int j = 0; j < n && at < 0; j++)
            if (reqs[j] == w->req) at = j;
        int ended = at < 0;
        if (!ended && w->kind == MPICHECK_WATCH_PERSISTENT) {
            ended = !ok || all;
            for (int k = 0; k < ndone && done && !ended; k++) ended = done[k] == at;
        }
        if (ended) buffers_release(w);
    }
    unlock();
}

void mpicheck_buffers_completed(MPI_Request req)
{
    lock(my_tid());
    for (int i = 0; i < watched_end; i++)
        if (watched[i].used && watched[i].kind != MPICHECK_WATCH_EPOCH && watched[i].req == req) buffers_release(&watched[i]);
    unlock();
}

/* Findings to MPICHECK_Access records; from a wrapper, never from a signal handler. */
void mpicheck_buffers_flush(void)
{
    if (__atomic_load_n(&findings_flushed, __ATOMIC_RELAXED) == __atomic_load_n(&findings_claimed, __ATOMIC_RELAXED))
        return;
    if (__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQUIRE)) return;
    unsigned next = findings_flushed;
    while (next != __atomic_load_n(&findings_claimed, __ATOMIC_ACQUIRE)) {
        struct finding *f = &findings[next % MAX_FINDINGS];
        if (!__atomic_load_n(&f->ready, __ATOMIC_ACQUIRE)) break;
        /* + 1: the resolver takes a call site for a return address and looks one byte back. */
        int64_t *w = mpicheck_begin(mpicheck_access_id, 8, (const void *)(f->pc + 1), 0);
        if (w) {
            w[0] = f->write;
            w[1] = (int64_t)f->address;
            w[2] = f->thread;
            w[3] = f->tid;
            w[4] = (int64_t)f->start;
            w[5] = (int64_t)f->len;
            w[6] = f->recv;
            w[7] = MPICHECK_W(f->site);
            mpicheck_entered(w);
            mpicheck_end(w, 0);
        }
        /* The slot is free once findings_flushed passes it: a handler takes it again. */
        __atomic_store_n(&f->ready, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&findings_flushed, ++next, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
}

void mpicheck_buffers_finalized(void)
{
    if (!mpicheck_buffers_on) return;
    mpicheck_buffers_flush();
    lock(my_tid());
    for (int i = 0; i < MAX_WATCHED; i++) {
        struct watched *w = &watched[i];
        if (pkeys_on && w->used)
            pkey_mprotect((void *)w->page_lo, w->page_hi - w->page_lo, PROT_READ | PROT_WRITE, 0);
        w->used = 0;
    }
    watched_end = 0;
    for (int i = 0; i < MAX_PERSISTENT; i++) persistent[i].used = 0;
    for (int i = 0; i < MAX_COLL_RANGES; i++) coll_ranges[i].used = 0;
    for (int i = 0; i < MAX_WINDOWS; i++) windows[i].used = 0;
    unlock();
    int64_t *w = mpicheck_begin(mpicheck_buffers_id, 5, __builtin_return_address(0), 0);
    if (w) {
        w[0] = (int64_t)count_watched;
        w[1] = (int64_t)count_unwatched;
        w[2] = (int64_t)count_dropped;
        w[3] = (int64_t)count_given_up;
        w[4] = (int64_t)neighbour_faults;
        mpicheck_entered(w);
        mpicheck_end(w, 0);
    }
    /* The sites given up, at the call that posted their buffers (the shared slot of the
     * sites beyond the table at no site). */
    for (int i = 0; i < MAX_SITES; i++) {
        if (!sites[i].used || !sites[i].over) continue;
        w = mpicheck_begin(mpicheck_given_up_id, 2, sites[i].site, 0);
        if (w) {
            w[0] = (int64_t)sites[i].faults;
            w[1] = (int64_t)sites[i].given_up;
            mpicheck_entered(w);
            mpicheck_end(w, 0);
        }
    }
}

#endif /* the other platforms' empty interface: buffers_maps.c */