/* Buffer checking (buffers.c) and the program's system calls. The kernel raises no SIGSEGV for
 * its own copies from and to user memory: a system call of the program that reaches a
 * protected page fails with EFAULT instead, so a read() into an array that shares a page with
 * a pending receive buffer would fail (ABySS read its input so, saw an empty file and
 * aborted). These wrappers of libc's entry points of the system calls that copy the program's
 * memory (read and write families, socket send and receive, their _FORTIFY_SOURCE forms) look
 * at the memory a call reaches while buffers are watched:
 * - where it overlaps a watched buffer's own bytes in a way MPI forbids (the kernel stores
 *   into any pending buffer, or loads from a pending receive buffer), it is the program's
 *   access: reported as the fault handler reports one, at the call of read() etc., and that
 *   buffer is no longer watched;
 * - the watched pages it reaches are then opened for the call: with protection keys, by
 *   allowing the keys in this thread's PKRU (other threads are not affected); without, by
 *   opening those pages (a lift that buffers_page_prot honours, so a thread leaving MPI
 *   meanwhile does not protect them again), which leaves another thread's accesses to them
 *   during the call unseen. Opening pages costs an mprotect pair, as a neighbour fault does:
 *   it is charged to the budget of neighbour faults (once per call); with keys it costs two
 *   WRPKRU and is not charged.
 * While nothing is watched a wrapper adds one load and one branch; a thread inside MPI
 * (MPI's own reads and writes) is passed through too: its keys are allowed, or no page is
 * protected while a thread is in MPI. Calls libc makes to itself (stdio's reads and writes,
 * fread/fwrite/printf) and raw system calls do not go through these symbols: they still fail
 * on protected pages (docs/buffer-checking.md, "Limits"). Async-signal-safe: fixed tables,
 * the lock of buffers_internal.h (a signal handler of the program that interrupts us under
 * it only gets its keys allowed), the program's arrays of iovecs are read outside the lock. */
#define _GNU_SOURCE
#include "have.h"
#include "mpicheck_interpose.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__linux__)

#include "buffers_internal.h"

struct lift lifts[MAX_LIFTS];

/* Under the lock. */
int buffers_lifted(uintptr_t page)
{
    for (int i = 0; i < MAX_LIFTS; i++)
        if (lifts[i].tid && page >= lifts[i].lo && page < lifts[i].hi) return 1;
    return 0;
}

#define GUARD_LIFTS 16
#define SPAN_CHUNK 16

struct guard {
    int keys;     /* this thread's keys were allowed: pkru is what to restore */
    uint32_t pkru;
    int charged;  /* the call was charged to the budget */
    int nlifts;
    int lift[GUARD_LIFTS];
};

struct span {
    uintptr_t lo, hi;
    int kernel_writes;
};

static inline int watching(void)
{
    return __builtin_expect(__atomic_load_n(&watched_end, __ATOMIC_RELAXED) != 0, 0);
}

/* Would the protection (without keys) forbid the kernel's access to page? As buffers_page_prot
 * while protected, whoever is in MPI or stepping now (that may change during the call). */
static int forbids(uintptr_t page, int kernel_writes)
{
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (!w->used || w->reported || page < w->page_lo || page >= w->page_hi) continue;
        if (w->recv && !w->readable && page >= w->start && page + page_size <= w->end) return 1;
        if (kernel_writes) return 1;
    }
    return 0;
}

static void allow_keys(struct guard *g)
{
    if (g->keys) return;
    g->pkru = read_pkru();
    g->keys = 1;
    write_pkru(g->pkru & ~key_mask);
}

/* Under the lock: the pages of [lo, hi) that forbid the access (from the first to the last
 * of them), opened for the call. */
static int forbidden_run(uintptr_t lo, uintptr_t hi, int kernel_writes, uintptr_t *first, uintptr_t *last)
{
    *first = *last = 0;
    for (uintptr_t p = lo; p < hi; p += page_size)
        if (forbids(p, kernel_writes)) {
            if (!*first) *first = p;
            *last = p + page_size;
        }
    return *first != 0;
}

static void lift_pages(struct guard *g, uintptr_t lo, uintptr_t hi, int kernel_writes, int me)
{
    uintptr_t first, last;
    if (!forbidden_run(lo, hi, kernel_writes, &first, &last)) return;
    if (!g->charged && protected_now) {
        /* Opening costs an mprotect pair now, as a neighbour fault does. It may give the
         * sites of these pages up (their buffers are then released: less to open). */
        g->charged = 1;
        buffers_charge_neighbour(first);
        if (!forbidden_run(lo, hi, kernel_writes, &first, &last)) return;
    }
    int slot = -1;
    for (int i = 0; i < MAX_LIFTS && slot < 0; i++)
        if (!lifts[i].tid) slot = i;
    if (slot < 0 || g->nlifts == GUARD_LIFTS) return; /* full: the call may fail as before */
    lifts[slot].tid = me;
    lifts[slot].lo = first;
    lifts[slot].hi = last;
    g->lift[g->nlifts++] = slot;
    if (protected_now) buffers_apply(first, last);
}

/* The memory of n spans that one system call of the program reaches. */
static void guard_spans(struct guard *g, const struct span *s, int n, uintptr_t pc)
{
    /* A thread whose keys are allowed outside MPI (one MPI started inside a call) never
     * faults: its accesses are MPI's, as for the fault handler. */
    if (pkeys_on && !(read_pkru() & key_deny)) return;
    int me = current_tid();
    if (__atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == me) {
        /* A signal handler of the program interrupted us under the lock: nothing to look up;
         * with keys the call still works. */
        if (pkeys_on) allow_keys(g);
        return;
    }
    lock(me);
    /* The program's accesses to watched buffers, as on_segv reports them. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < watched_end; i++) {
            struct watched *w = &watched[i];
            if (!w->used || w->reported || s[j].hi <= w->start || w->end <= s[j].lo) continue;
            if (!w->recv && !s[j].kernel_writes) continue; /* a load from a send buffer */
            buffers_note_finding(w, s[j].lo > w->start ? s[j].lo : w->start, pc, s[j].kernel_writes, me);
            w->reported = 1;
            buffers_apply(w->page_lo, w->page_hi);
        }
    /* The watched pages the call reaches, opened for it. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < watched_end; i++) {
            struct watched *w = &watched[i];
            if (!w->used || w->reported || s[j].hi <= w->page_lo || w->page_hi <= s[j].lo) continue;
            if (pkeys_on) {
                allow_keys(g);
                break;
            }
            uintptr_t lo = s[j].lo & ~(page_size - 1), hi = (s[j].hi + page_size - 1) & ~(page_size - 1);
            lift_pages(g, lo > w->page_lo ? lo : w->page_lo, hi < w->page_hi ? hi : w->page_hi, s[j].kernel_writes,
                       me);
        }
    unlock();
}

static void guard_span(struct guard *g, const void *p, size_t n, int kernel_writes, uintptr_t pc)
{
    if (!p || !n) return;
    struct span s = {(uintptr_t)p, (uintptr_t)p + n, kernel_writes};
    if (s.hi < s.lo) s.hi = UINTPTR_MAX;
    guard_spans(g, &s, 1, pc);
}

/* An array of iovecs (read by the kernel) and the memory they name, SPAN_CHUNK at a time:
 * copied out of the program's array before taking the lock (reading it may fault). */
static void guard_iov(struct guard *g, const struct iovec *iov, size_t cnt, int kernel_writes, uintptr_t pc)
{
    if (!iov || cnt == 0 || cnt > 1024) return; /* EINVAL: the kernel reaches nothing */
    guard_span(g, iov, cnt * sizeof *iov, 0, pc);
    for (size_t k = 0; k < cnt; k += SPAN_CHUNK) {
        struct span s[SPAN_CHUNK];
        int n = 0;
        for (size_t j = k; j < cnt && j < k + SPAN_CHUNK; j++) {
            uintptr_t lo = (uintptr_t)iov[j].iov_base;
            size_t len = iov[j].iov_len;
            if (!lo || !len) continue;
            s[n].lo = lo;
            s[n].hi = lo + len < lo ? UINTPTR_MAX : lo + len;
            s[n].kernel_writes = kernel_writes;
            n++;
        }
        if (n) guard_spans(g, s, n, pc);
    }
}

static void guard_msg(struct guard *g, const struct msghdr *msg, int receive, uintptr_t pc)
{
    if (!msg) return;
    /* recvmsg writes msg_namelen, msg_controllen and msg_flags back. */
    guard_span(g, msg, sizeof *msg, receive, pc);
    guard_span(g, msg->msg_name, msg->msg_namelen, receive, pc);
    guard_span(g, msg->msg_control, msg->msg_controllen, receive, pc);
    guard_iov(g, msg->msg_iov, msg->msg_iovlen, receive, pc);
}

/* After the call: the keys and the pages as they were; errno as the call left it. */
static void guard_end(struct guard *g)
{
    if (g->keys) write_pkru(g->pkru);
    if (!g->nlifts) return;
    int saved = errno;
    lock(current_tid());
    for (int k = 0; k < g->nlifts; k++) {
        struct lift *l = &lifts[g->lift[k]];
        uintptr_t lo = l->lo, hi = l->hi;
        l->tid = 0;
        if (protected_now) buffers_apply(lo, hi);
    }
    unlock();
    errno = saved;
}

#define GUARD_BEGIN                                                                                                    \
    struct guard g_;                                                                                                   \
    g_.keys = g_.charged = g_.nlifts = 0;                                                                              \
    uintptr_t pc_ = (uintptr_t)__builtin_return_address(0) - 1;                                                        \
    (void)pc_
#define GUARD_SPAN(p, n, w) guard_span(&g_, (p), (n), (w), pc_)
#define GUARD_IOV(iov, cnt, w) guard_iov(&g_, (iov), (size_t)(cnt), (w), pc_)
#define GUARD_MSG(msg, w) guard_msg(&g_, (msg), (w), pc_)
#define GUARD_END guard_end(&g_)
#define WATCHING_OUTSIDE_MPI() (watching() && mpicheck_depth == 0)

#else /* elsewhere buffer checking is off */

#define GUARD_BEGIN
#define GUARD_SPAN(p, n, w)
#define GUARD_IOV(iov, cnt, w)
#define GUARD_MSG(msg, w)
#define GUARD_END
#define WATCHING_OUTSIDE_MPI() 0

#endif

/* ---- the wrappers ------------------------------------------------------------------------- */

/* libc's entry points, found by the constructor (dlsym is not async-signal-safe); a call
 * before it ran (another library's constructor) resolves its own. */
#define REAL(name) static __typeof__(&name) real_##name
#define RESOLVE(name)                                                                                                  \
    if (__builtin_expect(real_##name == NULL, 0)) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

/* The _FORTIFY_SOURCE forms, which a fortified program calls instead (glibc declares them
 * only under _FORTIFY_SOURCE). */
ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t nbytes, off_t offset, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t nbytes, off64_t offset, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags, struct sockaddr *addr,
                       socklen_t *addrlen);

REAL(read);
REAL(__read_chk);
REAL(pread);
REAL(pread64);
REAL(__pread_chk);
REAL(__pread64_chk);
REAL(readv);
REAL(preadv);
REAL(preadv64);
REAL(preadv2);
REAL(preadv64v2);
REAL(recv);
REAL(__recv_chk);
REAL(recvfrom);
REAL(__recvfrom_chk);
REAL(recvmsg);
REAL(write);
REAL(pwrite);
REAL(pwrite64);
REAL(writev);
REAL(pwritev);
REAL(pwritev64);
REAL(pwritev2);
REAL(pwritev64v2);
REAL(send);
REAL(sendto);
REAL(sendmsg);

/* A call of libc's function with the memory it reaches guarded while buffers are watched. */
#define GUARDED(type, name, args, guards)                                                                              \
    RESOLVE(name);                                                                                                     \
    if (!WATCHING_OUTSIDE_MPI()) return real_##name args;                                                             \
    GUARD_BEGIN;                                                                                                       \
    guards;                                                                                                            \
    type r_ = real_##name args;                                                                                        \
    GUARD_END;                                                                                                         \
    return r_

ssize_t read(int fd, void *buf, size_t n) { GUARDED(ssize_t, read, (fd, buf, n), GUARD_SPAN(buf, n, 1)); }
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    GUARDED(ssize_t, __read_chk, (fd, buf, n, buflen), GUARD_SPAN(buf, n, 1));
}
ssize_t pread(int fd, void *buf, size_t n, off_t off) { GUARDED(ssize_t, pread, (fd, buf, n, off), GUARD_SPAN(buf, n, 1)); }
ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    GUARDED(ssize_t, pread64, (fd, buf, n, off), GUARD_SPAN(buf, n, 1));
}
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    GUARDED(ssize_t, __pread_chk, (fd, buf, n, off, buflen), GUARD_SPAN(buf, n, 1));
}
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
    GUARDED(ssize_t, __pread64_chk, (fd, buf, n, off, buflen), GUARD_SPAN(buf, n, 1));
}
ssize_t readv(int fd, const struct iovec *iov, int cnt) { GUARDED(ssize_t, readv, (fd, iov, cnt), GUARD_IOV(iov, cnt, 1)); }
ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
    GUARDED(ssize_t, preadv, (fd, iov, cnt, off), GUARD_IOV(iov, cnt, 1));
}
ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    GUARDED(ssize_t, preadv64, (fd, iov, cnt, off), GUARD_IOV(iov, cnt, 1));
}
ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
    GUARDED(ssize_t, preadv2, (fd, iov, cnt, off, flags), GUARD_IOV(iov, cnt, 1));
}
ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int flags)
{
    GUARDED(ssize_t, preadv64v2, (fd, iov, cnt, off, flags), GUARD_IOV(iov, cnt, 1));
}
ssize_t recv(int fd, void *buf, size_t n, int flags) { GUARDED(ssize_t, recv, (fd, buf, n, flags), GUARD_SPAN(buf, n, 1)); }
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
    GUARDED(ssize_t, __recv_chk, (fd, buf, n, buflen, flags), GUARD_SPAN(buf, n, 1));
}
ssize_t recvfrom(int fd, void *restrict buf, size_t n, int flags, struct sockaddr *restrict addr,
                 socklen_t *restrict addrlen)
{
    GUARDED(ssize_t, recvfrom, (fd, buf, n, flags, addr, addrlen), GUARD_SPAN(buf, n, 1);
            if (addr && addrlen) {
                GUARD_SPAN(addrlen, sizeof *addrlen, 1);
                GUARD_SPAN(addr, *addrlen, 1);
            });
}
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *addr, socklen_t *addrlen)
{
    GUARDED(ssize_t, __recvfrom_chk, (fd, buf, n, buflen, flags, addr, addrlen), GUARD_SPAN(buf, n, 1);
            if (addr && addrlen) {
                GUARD_SPAN(addrlen, sizeof *addrlen, 1);
                GUARD_SPAN(addr, *addrlen, 1);
            });
}
ssize_t recvmsg(int fd, struct msghdr *msg, int flags) { GUARDED(ssize_t, recvmsg, (fd, msg, flags), GUARD_MSG(msg, 1)); }

/* write: also c/abort.c's (how MPI aborts inside a call), which calls this one. */
ssize_t mpicheck_guarded_write(int fd, const void *buf, size_t n, const void *ret)
{
    RESOLVE(write);
    if (!WATCHING_OUTSIDE_MPI()) return real_write(fd, buf, n);
#if defined(__x86_64__) && defined(__linux__)
    struct guard g_;
    g_.keys = g_.charged = g_.nlifts = 0;
    guard_span(&g_, buf, n, 0, (uintptr_t)ret - 1);
#else
    (void)ret;
#endif
    ssize_t r_ = real_write(fd, buf, n);
    GUARD_END;
    return r_;
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    GUARDED(ssize_t, pwrite, (fd, buf, n, off), GUARD_SPAN(buf, n, 0));
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    GUARDED(ssize_t, pwrite64, (fd, buf, n, off), GUARD_SPAN(buf, n, 0));
}
ssize_t writev(int fd, const struct iovec *iov, int cnt) { GUARDED(ssize_t, writev, (fd, iov, cnt), GUARD_IOV(iov, cnt, 0)); }
ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    GUARDED(ssize_t, pwritev, (fd, iov, cnt, off), GUARD_IOV(iov, cnt, 0));
}
ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    GUARDED(ssize_t, pwritev64, (fd, iov, cnt, off), GUARD_IOV(iov, cnt, 0));
}
ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
    GUARDED(ssize_t, pwritev2, (fd, iov, cnt, off, flags), GUARD_IOV(iov, cnt, 0));
}
ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int flags)
{
    GUARDED(ssize_t, pwritev64v2, (fd, iov, cnt, off, flags), GUARD_IOV(iov, cnt, 0));
}
ssize_t send(int fd, const void *buf, size_t n, int flags) { GUARDED(ssize_t, send, (fd, buf, n, flags), GUARD_SPAN(buf, n, 0)); }
ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr, socklen_t addrlen)
{
    GUARDED(ssize_t, sendto, (fd, buf, n, flags, addr, addrlen), GUARD_SPAN(buf, n, 0); GUARD_SPAN(addr, addrlen, 0));
}
ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    GUARDED(ssize_t, sendmsg, (fd, msg, flags), GUARD_MSG(msg, 0));
}

__attribute__((constructor)) static void mpicheck_syscalls_prepare(void)
{
    RESOLVE(read);
    RESOLVE(__read_chk);
    RESOLVE(pread);
    RESOLVE(pread64);
    RESOLVE(__pread_chk);
    RESOLVE(__pread64_chk);
    RESOLVE(readv);
    RESOLVE(preadv);
    RESOLVE(preadv64);
    RESOLVE(preadv2);
    RESOLVE(preadv64v2);
    RESOLVE(recv);
    RESOLVE(__recv_chk);
    RESOLVE(recvfrom);
    RESOLVE(__recvfrom_chk);
    RESOLVE(recvmsg);
    RESOLVE(write);
    RESOLVE(pwrite);
    RESOLVE(pwrite64);
    RESOLVE(writev);
    RESOLVE(pwritev);
    RESOLVE(pwritev64);
    RESOLVE(pwritev2);
    RESOLVE(pwritev64v2);
    RESOLVE(send);
    RESOLVE(sendto);
    RESOLVE(sendmsg);
}
