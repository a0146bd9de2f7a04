/* Buffer checking (buffers.c): the signal handlers that find the program's accesses to
 * watched buffers and let its accesses to their neighbours through one instruction at a
 * time, and the budget of those neighbour faults per call site. The handlers are
 * async-signal-safe: fixed tables, the lock of buffers_internal.h, no allocation. */
#define _GNU_SOURCE
#include "have.h"
#include "mpicheck_interpose.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#if defined(__x86_64__) && defined(__linux__)

#include "buffers_internal.h"

#define XFEATURE_PKRU 9
#define FP_XSTATE_MAGIC1_VALUE 0x46505853u
#ifndef SEGV_PKUERR
#define SEGV_PKUERR 4
#endif

struct site_budget sites[MAX_SITES];
uint64_t site_budget = SITE_BUDGET, process_budget = (uint64_t)SITE_BUDGET * PROCESS_BUDGET_SITES;
uint64_t neighbour_faults;
int process_over;
static struct stepper retried[MAX_STEPPERS];
static struct sigaction old_segv, old_trap;

static uint32_t *frame_pkru(ucontext_t *ctx)
{
    unsigned char *area = (unsigned char *)ctx->uc_mcontext.fpregs;
    if (!area) return NULL;
    uint32_t magic1, extended_size;
    uint64_t features;
    memcpy(&magic1, area + 464, 4); /* struct _fpx_sw_bytes in the FXSAVE area's spare bytes */
    memcpy(&extended_size, area + 468, 4);
    memcpy(&features, area + 472, 8);
    if (magic1 != FP_XSTATE_MAGIC1_VALUE || !(features & (1ull << XFEATURE_PKRU)) ||
        extended_size < pkru_offset + 4)
        return NULL;
    /* A component marked as in its initial state is not restored from the area. */
    uint64_t header;
    memcpy(&header, area + 512, 8);
    header |= 1ull << XFEATURE_PKRU;
    memcpy(area + 512, &header, 8);
    return (uint32_t *)(area + pkru_offset);
}

/* ---- the budget of neighbour faults (under the lock; also from the handlers) ------------- */

/* The slot of a call site in sites[]; sites beyond the table share the last one. */
int buffers_site_slot(const void *site)
{
    for (int i = 0; i < MAX_SITES - 1; i++) {
        if (!sites[i].used) {
            sites[i].used = 1;
            sites[i].site = site;
            return i;
        }
        if (sites[i].site == site) return i;
    }
    sites[MAX_SITES - 1].used = 1;
    return MAX_SITES - 1;
}

/* Stops watching the site's pending buffers, and (over) the ones it posts later. They count
 * as given up, not as watched. */
static void give_up(int slot)
{
    sites[slot].over = 1;
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (!w->used || w->reported || w->budget != slot) continue;
        sites[slot].given_up++;
        count_given_up++;
        count_watched--;
        buffers_release(w);
    }
}

/* A neighbour fault on page: charged once to each site whose watched buffers cover it. */
void buffers_charge_neighbour(uintptr_t page)
{
    uint64_t n = ++neighbour_faults;
    if (!site_budget) return;
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (!w->used || w->reported || page < w->page_lo || page >= w->page_hi) continue;
        struct site_budget *s = &sites[w->budget];
        if (s->charged == n) continue;
        s->charged = n;
        if (++s->faults > site_budget) give_up(w->budget);
    }
    if (n > process_budget && !process_over) {
        process_over = 1;
        for (int i = 0; i < MAX_SITES; i++)
            if (sites[i].used && !sites[i].over) give_up(i);
    }
}

/* ---- signal handlers (async-signal-safe) ------------------------------------------------ */

static void chain(const struct sigaction *old, int sig, siginfo_t *info, void *ctx)
{
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction) {
            old->sa_sigaction(sig, info, ctx);
            return;
        }
    } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
        return;
    }
    /* The default action, as without mpicheck: a fault happens again when the instruction
     * is retried; a trap or a sent signal does not, so it is raised again. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    if (sig != SIGSEGV || info->si_code <= 0) raise(sig);
}

static int retry_once(int me, uintptr_t page)
{
    for (int i = 0; i < MAX_STEPPERS; i++)
        if (retried[i].tid == me && retried[i].page == page) {
            retried[i].tid = 0;
            return 0;
        }
    for (int i = 0; i < MAX_STEPPERS; i++)
        if (!retried[i].tid) {
            retried[i].tid = me;
            retried[i].page = page;
            return 1;
        }
    return 0;
}

void buffers_note_finding(const struct watched *w, uintptr_t addr, uintptr_t pc, int write, int me)
{
    /* A ring: slots the wrappers flushed are taken again; dropped only when MAX_FINDINGS
     * wait to be flushed (between two MPI calls of the process). */
    unsigned i = __atomic_load_n(&findings_claimed, __ATOMIC_RELAXED);
    do {
        if (i - __atomic_load_n(&findings_flushed, __ATOMIC_ACQUIRE) >= MAX_FINDINGS) {
            __atomic_fetch_add(&count_dropped, 1, __ATOMIC_RELAXED);
            return;
        }
    } while (!__atomic_compare_exchange_n(&findings_claimed, &i, i + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    struct finding *f = &findings[i % MAX_FINDINGS];
    f->write = write;
    f->recv = w->recv;
    f->thread = (int)mpicheck_thread_slot - 1;
    f->tid = me;
    f->address = addr;
    f->pc = pc;
    f->start = w->start;
    f->len = w->end - w->start;
    f->site = w->site;
    __atomic_store_n(&f->ready, 1, __ATOMIC_RELEASE);
}

/* A fault on a page that carries one of our keys: a finding when a thread outside MPI made
 * an access MPI forbids to a watched buffer's own bytes; in every case the instruction is
 * let through with the thread's keys allowed for one step (the trap flag; on_trap denies
 * them again). Keys are per thread: nothing changes for the other threads meanwhile. */
static void on_key_fault(siginfo_t *info, ucontext_t *ctx, int me)
{
    uintptr_t addr = (uintptr_t)info->si_addr;
    uintptr_t page = addr & ~(page_size - 1);
    int write = (ctx->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    uint32_t *pkru = frame_pkru(ctx);
    if (__atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == me) {
        /* A signal handler of the program interrupted us under the lock: it keeps the keys
         * allowed until it returns (its sigreturn restores what we had). */
        if (pkru) *pkru &= ~key_mask;
        else pkey_mprotect((void *)page, page_size, PROT_READ | PROT_WRITE, 0);
        return;
    }
    lock(me);
    struct watched *hit = NULL;
    for (int i = 0; i < watched_end && !hit; i++) {
        struct watched *w = &watched[i];
        if (w->used && !w->reported && addr >= w->start && addr < w->end) hit = w;
    }
    if (hit && mpicheck_depth == 0 && (hit->recv || write)) {
        buffers_note_finding(hit, addr, (uintptr_t)ctx->uc_mcontext.gregs[REG_RIP], write, me);
        hit->reported = 1;
        buffers_apply(hit->page_lo, hit->page_hi);
    }
    if (!hit) {
        buffers_charge_neighbour(page);
        if (buffers_page_key(page) == 0) {
            /* Its buffers were given up: the instruction runs again on an untagged page. */
            unlock();
            return;
        }
    }
    int slot = -1;
    for (int i = 0; i < MAX_STEPPERS && slot < 0 && pkru; i++)
        if (!steppers[i].tid) slot = i;
    if (slot >= 0) {
        steppers[slot].tid = me;
        steppers[slot].page = STEP_KEYS;
        *pkru &= ~key_mask;
        ctx->uc_mcontext.gregs[REG_EFL] |= EFLAGS_TF;
    } else {
        /* No way to step (more threads stepping than slots, or no PKRU in the frame): stop
         * watching this page's buffers. */
        for (int i = 0; i < watched_end; i++) {
            struct watched *w = &watched[i];
            if (w->used && page >= w->page_lo && page < w->page_hi) w->reported = 1;
        }
        pkey_mprotect((void *)page, page_size, PROT_READ | PROT_WRITE, 0);
    }
    unlock();
}

static void on_segv(int sig, siginfo_t *info, void *ctx_)
{
    ucontext_t *ctx = ctx_;
    uintptr_t addr = (uintptr_t)info->si_addr;
    uintptr_t page = addr & ~(page_size - 1);
    int me = current_tid();
    if (pkeys_on) {
        if (info->si_code == SEGV_PKUERR && (info->si_pkey == (unsigned)key_send || info->si_pkey == (unsigned)key_recv))
            on_key_fault(info, ctx, me);
        else
            chain(&old_segv, sig, info, ctx_);
        return;
    }
    if (info->si_code != SEGV_ACCERR || __atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == me) {
        /* Not a protection fault, or a signal handler of the program interrupted us: not
         * ours to judge. */
        chain(&old_segv, sig, info, ctx_);
        return;
    }
    lock(me);
    struct watched *hit = NULL, *covering = NULL;
    for (int i = 0; i < watched_end; i++) {
        struct watched *w = &watched[i];
        if (!w->used || w->reported || page < w->page_lo || page >= w->page_hi) continue;
        covering = w;
        if (addr >= w->start && addr < w->end && !hit) hit = w;
    }
    if (!covering) {
        int ours = 0;
        for (int i = 0; i < MAX_RELEASED; i++)
            if (page >= released[i].lo && page < released[i].hi) ours = 1;
        ours = ours && retry_once(me, page);
        unlock();
        if (!ours) chain(&old_segv, sig, info, ctx_);
        return;
    }
    int write = (ctx->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    if (hit && mpicheck_depth == 0 && (hit->recv || write)) {
        buffers_note_finding(hit, addr, (uintptr_t)ctx->uc_mcontext.gregs[REG_RIP], write, me);
        hit->reported = 1;
        buffers_apply(hit->page_lo, hit->page_hi);
    }
    if (!hit) buffers_charge_neighbour(page); /* may give up buffers of this page: prot below */
    int prot = buffers_page_prot(page);
    int allowed = write ? (prot & PROT_WRITE) : (prot & PROT_READ);
    if (!allowed) {
        /* A neighbour of the buffer, or MPI: let this one instruction through. */
        int slot = -1;
        for (int i = 0; i < MAX_STEPPERS && slot < 0; i++)
            if (!steppers[i].tid) slot = i;
        if (slot >= 0) {
            steppers[slot].tid = me;
            steppers[slot].page = page;
            mprotect((void *)page, page_size, PROT_READ | PROT_WRITE);
            ctx->uc_mcontext.gregs[REG_EFL] |= EFLAGS_TF;
        } else {
            /* More threads stepping than slots: stop watching this page's buffers. */
            for (int i = 0; i < watched_end; i++) {
                struct watched *w = &watched[i];
                if (w->used && page >= w->page_lo && page < w->page_hi) w->reported = 1;
            }
            mprotect((void *)page, page_size, PROT_READ | PROT_WRITE);
        }
    }
    unlock();
}

static void on_trap(int sig, siginfo_t *info, void *ctx_)
{
    ucontext_t *ctx = ctx_;
    int me = current_tid();
    if (__atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == me) {
        chain(&old_trap, sig, info, ctx_);
        return;
    }
    lock(me);
    int slot = -1;
    for (int i = 0; i < MAX_STEPPERS && slot < 0; i++)
        if (steppers[i].tid == me) slot = i;
    if (slot < 0) {
        unlock();
        chain(&old_trap, sig, info, ctx_);
        return;
    }
    uintptr_t page = steppers[slot].page;
    steppers[slot].tid = 0;
    ctx->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)EFLAGS_TF;
    if (page == STEP_KEYS) {
        /* What the thread must have: denied outside MPI (also a thread that started with the
         * kernel's default, which denies every key, and may read send buffers), allowed in. */
        uint32_t *pkru = frame_pkru(ctx);
        if (pkru) *pkru = (*pkru & ~key_mask) | (mpicheck_depth ? 0 : key_deny);
    } else if (protected_now) {
        buffers_apply(page, page + page_size);
    }
    unlock();
}

/* Our handlers come first, the program's run for what is not ours; a handler the program
 * installed since is found here and chained to (called before protecting). */
static void ensure_handler(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *old)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) != 0) return;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fn) return;
    *old = cur;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

void buffers_install_handlers(void)
{
    ensure_handler(SIGSEGV, on_segv, &old_segv);
    ensure_handler(SIGTRAP, on_trap, &old_trap);
}

#endif
