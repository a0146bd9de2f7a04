/* Buffer checking's state shared by buffers.c (the wrappers' interface, the tables of watched
 * buffers, the protections) and buffers_faults.c (the signal handlers and the budget of
 * neighbour faults). Everything here is read and written under the lock unless said
 * otherwise. Only x86-64 Linux; not exported (hidden, and the library's version script). */
#ifndef MPICHECK_BUFFERS_INTERNAL_H
#define MPICHECK_BUFFERS_INTERNAL_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pkru.h"

#pragma GCC visibility push(hidden)

#define MAX_WATCHED 256
#define MAX_FINDINGS 64
#define MAX_STEPPERS 64
#define MAX_RELEASED 64
#define EFLAGS_TF 0x100

struct watched {
    int used;     /* the operation is pending */
    int recv;     /* MPI writes the buffer */
    int readable; /* a receive buffer that other processes may read: never inaccessible */
    int reported; /* an access was reported: no longer protected */
    int kind;
    MPI_Request req; /* MPI_REQUEST_NULL for MPICHECK_WATCH_EPOCH */
    MPI_Win win;     /* MPICHECK_WATCH_EPOCH: the window and the target rank */
    int target;
    uint64_t mark; /* held by a completion call in progress */
    uintptr_t start, end, page_lo, page_hi;
    const void *site;
    int budget; /* its call site's slot in sites[] */
};

struct finding {
    int ready;
    int write;
    int recv;
    int thread; /* recorder thread index, -1 if the thread never recorded */
    int tid;
    uintptr_t address, pc, start, len;
    const void *site;
};

struct stepper {
    int tid; /* 0 = free */
    uintptr_t page;
};

extern struct watched watched[MAX_WATCHED];
/* 1 + the highest slot in use: the scans of every MPI call stop there (nothing to scan in
 * the common case of no pending buffer). */
extern int watched_end;
/* A ring written by the handlers (slot claimed % MAX_FINDINGS, claimed atomically) and
 * flushed by the wrappers (up to flushed): at most MAX_FINDINGS wait to be flushed. */
extern struct finding findings[MAX_FINDINGS];
extern unsigned findings_claimed, findings_flushed;
extern struct stepper steppers[MAX_STEPPERS];
/* Page ranges released recently: a fault that raced with the release is retried once. */
extern struct released_pages {
    uintptr_t lo, hi;
} released[MAX_RELEASED];
extern int lock_word;
extern int lock_owner;
extern int protected_now;
extern uintptr_t page_size;
extern uint64_t count_watched, count_dropped, count_given_up;

/* The budget of neighbour faults (a fault on a watched page that is not an access to a
 * watched buffer's own bytes: each costs two signals and, without keys, two mprotect calls,
 * 20-45 us): per call site of the call that made the buffer pending, and per process.
 * Chosen by measurement (docs/buffer-checking.md, "The cost of neighbours"); overridden by
 * MPICHECK_BUFFERS_NEIGHBOUR_BUDGET (the per-site budget; the process's is 16 times it;
 * 0 = no budget). Sites beyond the table share its last slot (site NULL). */
#define MAX_SITES 64
#define SITE_BUDGET 2000
#define PROCESS_BUDGET_SITES 16
extern struct site_budget {
    const void *site;
    uint64_t faults;   /* neighbour faults charged to it */
    uint64_t given_up; /* buffers given up: pending when it was given up, and posted since */
    uint64_t charged;  /* the fault (neighbour_faults) last charged: once per fault */
    int used, over;
} sites[MAX_SITES];
extern uint64_t site_budget, process_budget;
extern uint64_t neighbour_faults;
extern int process_over; /* the process exceeded its budget: nothing more is watched */

/* Memory protection keys (buffers.c, "Memory protection keys"). */
extern int pkeys_on;
extern int key_send, key_recv;
extern uint32_t key_mask, key_deny;
/* The offset of PKRU in the XSAVE area of a signal frame (CPUID leaf 0xD, subleaf 9). */
extern uintptr_t pkru_offset;
#define PKRU_AD(key) (1u << (2 * (key)))
#define PKRU_WD(key) (2u << (2 * (key)))
/* The stepper slot of a thread stepping one instruction with its keys allowed. */
#define STEP_KEYS UINTPTR_MAX

static inline int current_tid(void)
{
    return (int)syscall(SYS_gettid);
}

static inline void lock(int me)
{
    while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&lock_word, __ATOMIC_RELAXED)) syscall(SYS_sched_yield);
    }
    __atomic_store_n(&lock_owner, me, __ATOMIC_RELAXED);
}

static inline void unlock(void)
{
    __atomic_store_n(&lock_owner, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

/* buffers.c: what a page must allow now (without keys), the key it must carry (with keys),
 * every page of [lo, hi) set to that, and a watched buffer's slot freed. */
int buffers_page_prot(uintptr_t page);
int buffers_page_key(uintptr_t page);
void buffers_apply(uintptr_t lo, uintptr_t hi);
void buffers_release(struct watched *w);

/* buffers_faults.c: the slot of a call site in sites[]; our SIGSEGV and SIGTRAP handlers
 * installed first (again if the program replaced them); a finding written to the ring
 * (pc: the instruction, the record's call site is pc + 1); a neighbour access charged to
 * the budgets of the sites whose buffers cover page. */
int buffers_site_slot(const void *site);
void buffers_install_handlers(void);
void buffers_note_finding(const struct watched *w, uintptr_t addr, uintptr_t pc, int write, int me);
void buffers_charge_neighbour(uintptr_t page);

/* buffers_syscalls.c (without keys): pages a system call of the program reaches, opened for
 * its duration (buffers_page_prot gives them read-write). tid 0 = free. */
#define MAX_LIFTS 64
extern struct lift {
    int tid;
    uintptr_t lo, hi; /* page-aligned */
} lifts[MAX_LIFTS];
int buffers_lifted(uintptr_t page);

#pragma GCC visibility pop

#endif
