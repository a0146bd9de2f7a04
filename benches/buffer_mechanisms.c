/* What the candidate mechanisms of buffer checking (docs/buffer-checking.md) cost per
 * operation on this machine, without MPI: page protection (mprotect to read-only and back,
 * for 1 page and for 256 pages = 1 MiB; one fault let through by single-stepping, as an
 * access to a neighbour of a watched buffer costs), memory protection keys (a key put on
 * the pages and taken off again, as at post and completion; the PKRU write pair of every
 * MPI call; a neighbour's store single-stepped with the key allowed in the signal frame;
 * skipped when pkey_alloc fails) and content comparison (hashing 4 KiB and 1 MiB, done at
 * post and again at completion). x86-64 Linux.
 *
 *   cc -O2 benches/buffer_mechanisms.c -o /tmp/buffer_mechanisms && /tmp/buffer_mechanisms
 *
 * Prints "name ns-per-operation" lines, the median of 7 rounds. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../crates/mpicheck-interpose/c/pkru.h"

static char *mem;
static long page;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)info;
    mprotect(mem, page, PROT_READ | PROT_WRITE);
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] |= 0x100;
}

static void on_trap(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)info;
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)0x100;
    mprotect(mem, page, PROT_READ);
}

static int key = -1;
static unsigned pkru_offset;

/* As the interposition library's: the PKRU restored at sigreturn, in the frame's XSAVE area. */
static uint32_t *frame_pkru(void *ctx)
{
    char *area = (char *)((ucontext_t *)ctx)->uc_mcontext.fpregs;
    *(uint64_t *)(area + 512) |= 1ull << 9;
    return (uint32_t *)(area + pkru_offset);
}

static void on_key_segv(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)info;
    *frame_pkru(ctx) &= ~(3u << (2 * key));
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] |= 0x100;
}

static void on_key_trap(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)info;
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)0x100;
    *frame_pkru(ctx) |= 2u << (2 * key);
}

static uint64_t hash(const uint64_t *w, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < n; i++) h = (h ^ w[i]) * 0xff51afd7ed558ccdu;
    return h;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define ROUNDS 7
static void report(const char *name, double *t)
{
    qsort(t, ROUNDS, sizeof *t, cmp);
    printf("%s %.0f (min %.0f, max %.0f)\n", name, t[ROUNDS / 2], t[0], t[ROUNDS - 1]);
}

int main(void)
{
    page = sysconf(_SC_PAGESIZE);
    size_t big = 256 * page;
    mem = aligned_alloc(page, big);
    memset(mem, 1, big);
    volatile uint64_t sink = 0;
    double t[ROUNDS];
    int n = 20000;

    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (int i = 0; i < n; i++) {
            mprotect(mem, page, PROT_READ);
            mprotect(mem, page, PROT_READ | PROT_WRITE);
        }
        t[r] = (now_ns() - t0) / n;
    }
    report("protect+unprotect_1_page", t);
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (int i = 0; i < n / 10; i++) {
            mprotect(mem, big, PROT_READ);
            mprotect(mem, big, PROT_READ | PROT_WRITE);
        }
        t[r] = (now_ns() - t0) / (n / 10);
    }
    report("protect+unprotect_256_pages", t);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO;
    sa.sa_sigaction = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    sa.sa_sigaction = on_trap;
    sigaction(SIGTRAP, &sa, NULL);
    mprotect(mem, page, PROT_READ);
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (int i = 0; i < n; i++) ((volatile char *)mem)[i % 64] = 2;
        t[r] = (now_ns() - t0) / n;
    }
    mprotect(mem, page, PROT_READ | PROT_WRITE);
    report("neighbour_store_single_stepped", t);

    unsigned eax, ebx, ecx, edx;
    key = pkey_alloc(0, 0);
    if (key >= 0 && __get_cpuid_count(0xd, 9, &eax, &ebx, &ecx, &edx)) {
        pkru_offset = ebx;
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = now_ns();
            for (int i = 0; i < n; i++) {
                pkey_mprotect(mem, page, PROT_READ | PROT_WRITE, key);
                pkey_mprotect(mem, page, PROT_READ | PROT_WRITE, 0);
            }
            t[r] = (now_ns() - t0) / n;
        }
        report("pkey_on+off_1_page", t);
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = now_ns();
            for (int i = 0; i < n / 10; i++) {
                pkey_mprotect(mem, big, PROT_READ | PROT_WRITE, key);
                pkey_mprotect(mem, big, PROT_READ | PROT_WRITE, 0);
            }
            t[r] = (now_ns() - t0) / (n / 10);
        }
        report("pkey_on+off_256_pages", t);
        uint32_t deny = read_pkru() | 2u << (2 * key), allow = deny & ~(3u << (2 * key));
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = now_ns();
            for (int i = 0; i < n * 100; i++) {
                write_pkru(allow);
                write_pkru(deny);
            }
            t[r] = (now_ns() - t0) / (n * 100);
        }
        report("pkru_allow+deny", t);
        sa.sa_sigaction = on_key_segv;
        sigaction(SIGSEGV, &sa, NULL);
        sa.sa_sigaction = on_key_trap;
        sigaction(SIGTRAP, &sa, NULL);
        pkey_mprotect(mem, page, PROT_READ | PROT_WRITE, key);
        write_pkru(deny);
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = now_ns();
            for (int i = 0; i < n; i++) ((volatile char *)mem)[i % 64] = 2;
            t[r] = (now_ns() - t0) / n;
        }
        write_pkru(allow);
        pkey_mprotect(mem, page, PROT_READ | PROT_WRITE, 0);
        report("neighbour_store_single_stepped_pkey", t);
    } else {
        printf("no protection keys here (pkey_alloc failed): no pkey rows\n");
    }

    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (int i = 0; i < n; i++) sink += hash((const uint64_t *)mem, page / 8);
        t[r] = (now_ns() - t0) / n;
    }
    report("hash_4KiB", t);
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (int i = 0; i < n / 100; i++) sink += hash((const uint64_t *)mem, big / 8);
        t[r] = (now_ns() - t0) / (n / 100);
    }
    report("hash_1MiB", t);
    return sink == 42;
}
