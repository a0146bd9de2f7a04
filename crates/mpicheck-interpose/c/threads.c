/* Synchronization between the application's threads, recorded for happens-before.
 *
 * GCC's libgomp (GCC 12 on the development machine, and every release up to 14) implements no
 * OMPT tool interface, so `ompt_start_tool` would never be called. The OpenMP constructs are
 * observed instead at libgomp's entry points, which the compiler calls from the application's
 * code and which this preloaded library interposes (GOMP_parallel*, GOMP_barrier and the
 * implicit barriers at the end of worksharing constructs, GOMP_critical*, GOMP_ordered*,
 * GOMP_atomic*, omp_*_lock, GOMP_task only to say that tasks are not tracked; the blocks of
 * `single` and `sections` a thread executes, see below); POSIX threads
 * through pthread_create/join/exit, pthread_mutex_*, pthread_cond_*wait, pthread_barrier_wait,
 * pthread_spin_*, sem_post/sem_*wait. Not observed: read-write locks, atomics and spin-waits on
 * plain variables, LLVM's libomp entry points (__kmpc_*): threads started by a runtime this
 * file does not see have no recorded start, and the analyzer then claims nothing about them.
 *
 * Each synchronization becomes one MPICHECK_Sync pseudo-record (what, object) in the same
 * trace stream as the MPI calls: a release is recorded before the real operation, an acquire
 * after it, so the record order of the process (one atomic counter) never shows an acquire
 * before the release it observed. The analyzer turns them into vector clocks. The wrappers
 * never block, never serialize threads and change no argument (the rules of the seed's §4.2).
 *
 * Only application code is observed for POSIX primitives: a call whose return address is not
 * in the main executable (the MPI library's own locks, libgomp creating its workers) is passed
 * through unrecorded. MPICHECK_THREADS=0 turns all of this off. */
#define _GNU_SOURCE
#include "have.h"
#include "mpicheck_interpose.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

/* `what` of MPICHECK_Sync (mirrored in mpicheck-analyzer's threads.rs). */
enum {
    MPICHECK_SYNC_TRACKING = 0, /* recording is on in this process (written once at start) */
    MPICHECK_SYNC_RELEASE = 1,
    MPICHECK_SYNC_ACQUIRE = 2,
    MPICHECK_SYNC_REGION_BEGIN = 3, /* object = region token; releases REGION_START(token) */
    MPICHECK_SYNC_REGION_END = 4,   /* object = region token; acquires REGION_END(token) */
    MPICHECK_SYNC_UNTRACKED = 5,    /* the process synchronizes in ways not recorded (tasks) */
    MPICHECK_SYNC_WORKSHARE_BEGIN = 6, /* object = WORKSHARE_*(team): this thread runs the block */
    MPICHECK_SYNC_WORKSHARE_END = 7,   /* the thread left the block (written only when no other
                                          record of the thread says so first) */
};

/* Object namespaces: addresses of mutexes and locks are below 2^48; the rest is tagged. */
#define MPICHECK_OBJ(ns, v) (((uint64_t)(ns) << 56) | ((uint64_t)(v) & ((UINT64_C(1) << 56) - 1)))
#define OBJ_REGION_START(t) MPICHECK_OBJ(1, t)
#define OBJ_REGION_END(t) MPICHECK_OBJ(2, t)
#define OBJ_BARRIER(t) MPICHECK_OBJ(3, t)
#define OBJ_THREAD_START(t) MPICHECK_OBJ(4, t)
#define OBJ_THREAD_END(pt) MPICHECK_OBJ(5, pt)
#define OBJ_CRITICAL MPICHECK_OBJ(6, 0)
#define OBJ_ATOMIC MPICHECK_OBJ(6, 1)
#define OBJ_ORDERED(t) MPICHECK_OBJ(7, t)
/* A block of a worksharing construct that any thread of team `t` could have executed. */
#define WORKSHARE_SINGLE(t) MPICHECK_OBJ(8, t)
#define WORKSHARE_SECTION(t) MPICHECK_OBJ(9, t)

extern const uint16_t mpicheck_sync_id;
extern __thread int mpicheck_depth;

static int mpicheck_threads_on;
/* Set once the program started a thread (pthread_create, a parallel region): before that,
 * locks order nothing between threads and are not recorded, so a single-threaded program
 * pays only the forwarding. */
static atomic_int mpicheck_multi;
static atomic_uint_fast64_t mpicheck_next_token = 1;
/* The innermost parallel region this thread runs in (0 outside any). */
static __thread uint64_t mpicheck_team;
/* This thread runs the block of a `single` or a section, and no record since says so. */
static __thread int mpicheck_in_workshare __attribute__((tls_model("initial-exec")));
/* The main executable's code, for telling application calls from library calls. */
static uintptr_t mpicheck_exe_lo, mpicheck_exe_hi;

/* Records a synchronization; 0 when nothing is recorded (before the process's first MPI
 * call there is no trace: orderings before it involve no recorded call, so losing them
 * loses nothing). */
static int mpicheck_sync(int what, uint64_t object, const void *site)
{
    int64_t *w = mpicheck_begin_recording(mpicheck_sync_id, 2, site, 0);
    if (!w) return 0;
    /* Any later record of this thread ends the block it was in (the analyzer reads it so). */
    mpicheck_in_workshare = what == MPICHECK_SYNC_WORKSHARE_BEGIN;
    w[0] = what;
    w[1] = (int64_t)object;
    mpicheck_entered(w);
    mpicheck_end(w, 0);
    return 1;
}

static int mpicheck_exe_range(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    /* The first object is the main program. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (mpicheck_exe_lo == 0 || lo < mpicheck_exe_lo) mpicheck_exe_lo = lo;
        if (hi > mpicheck_exe_hi) mpicheck_exe_hi = hi;
    }
    return 1;
}

/* Called by support.c's constructor. */
void mpicheck_threads_prepare(void)
{
    const char *env = getenv("MPICHECK_THREADS");
    if (env && strcmp(env, "0") == 0) return;
    dl_iterate_phdr(mpicheck_exe_range, NULL);
    mpicheck_threads_on = 1;
}

void mpicheck_threads_on_start(void)
{
    if (mpicheck_threads_on) mpicheck_sync(MPICHECK_SYNC_TRACKING, 0, __builtin_return_address(0));
}

/* Record only application code, outside MPI (MPI's own locking is not the application's). */
static inline int mpicheck_app_call(const void *site)
{
    uintptr_t a = (uintptr_t)site;
    return mpicheck_threads_on && mpicheck_depth == 0 && a >= mpicheck_exe_lo && a < mpicheck_exe_hi;
}

static inline int mpicheck_omp_call(void)
{
    return mpicheck_threads_on && mpicheck_depth == 0;
}

/* A lock operation worth recording: some thread was started. */
static inline int mpicheck_multi_threaded(void)
{
    return atomic_load_explicit(&mpicheck_multi, memory_order_relaxed);
}

/* The next definition of the function being defined (libgomp's, libc's). */
#define REAL(name)                                 \
    static __typeof__(&name) real_##name;          \
    if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

/* ---- OpenMP (libgomp) ------------------------------------------------------------------ */

struct mpicheck_region {
    void (*fn)(void *);
    void *data;
    uint64_t token;
};

static void mpicheck_region_body(void *arg)
{
    struct mpicheck_region *r = arg;
    uint64_t outer = mpicheck_team;
    mpicheck_team = r->token;
    /* The region's outlined function stands for the call site. */
    mpicheck_sync(MPICHECK_SYNC_ACQUIRE, OBJ_REGION_START(r->token), (const void *)r->fn);
    r->fn(r->data);
    mpicheck_sync(MPICHECK_SYNC_RELEASE, OBJ_REGION_END(r->token), (const void *)r->fn);
    mpicheck_team = outer;
}

/* Runs a parallel region's outlined function through mpicheck_region_body on every thread of
 * the team; `call` starts the real region with the substituted function and data. */
#define MPICHECK_REGION(fn, data, call)                                     \
    do {                                                                    \
        if (!mpicheck_omp_call()) {                                         \
            void (*body)(void *) = fn;                                      \
            void *arg = data;                                               \
            call;                                                           \
            return;                                                         \
        }                                                                   \
        atomic_store_explicit(&mpicheck_multi, 1, memory_order_relaxed);   \
        struct mpicheck_region r = {fn, data, atomic_fetch_add(&mpicheck_next_token, 1)}; \
        const void *site = __builtin_return_address(0);                    \
        mpicheck_sync(MPICHECK_SYNC_REGION_BEGIN, r.token, site);           \
        void (*body)(void *) = mpicheck_region_body;                        \
        void *arg = &r;                                                     \
        call;                                                               \
        mpicheck_sync(MPICHECK_SYNC_REGION_END, r.token, site);             \
    } while (0)

typedef void (*omp_fn)(void *);

void GOMP_parallel(omp_fn fn, void *data, unsigned num_threads, unsigned flags)
{
    REAL(GOMP_parallel);
    MPICHECK_REGION(fn, data, real_GOMP_parallel(body, arg, num_threads, flags));
}

void GOMP_parallel_sections(omp_fn fn, void *data, unsigned num_threads, unsigned count, unsigned flags)
{
    REAL(GOMP_parallel_sections);
    MPICHECK_REGION(fn, data, real_GOMP_parallel_sections(body, arg, num_threads, count, flags));
}

#define MPICHECK_PARALLEL_LOOP(name)                                                                \
    void name(omp_fn fn, void *data, unsigned num_threads, long start, long end, long incr,        \
              long chunk, unsigned flags)                                                          \
    {                                                                                              \
        REAL(name);          \
        MPICHECK_REGION(fn, data, real_##name(body, arg, num_threads, start, end, incr, chunk, flags)); \
    }
MPICHECK_PARALLEL_LOOP(GOMP_parallel_loop_static)
MPICHECK_PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
MPICHECK_PARALLEL_LOOP(GOMP_parallel_loop_guided)
MPICHECK_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
MPICHECK_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)

void GOMP_parallel_loop_runtime(omp_fn fn, void *data, unsigned num_threads, long start, long end,
                                long incr, unsigned flags)
{
    REAL(GOMP_parallel_loop_runtime);
    MPICHECK_REGION(fn, data, real_GOMP_parallel_loop_runtime(body, arg, num_threads, start, end, incr, flags));
}

/* Explicit tasks run on any thread of the team; their creation and completion (taskwait,
 * taskgroup, dependences) are not recorded, so the analyzer must not conclude that calls in
 * them are unordered: say so once, and forward the call unchanged. The parameters are those
 * of GCC 11 and later (detach added in GCC 11); an older libgomp ignores the extra ones. */
void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
               void *detach)
{
    REAL(GOMP_task);
    /* Said once it is in the trace (a task before the first MPI call is not). */
    static atomic_int said;
    if (mpicheck_omp_call() && !atomic_load(&said) &&
        mpicheck_sync(MPICHECK_SYNC_UNTRACKED, 0, __builtin_return_address(0)))
        atomic_store(&said, 1);
    real_GOMP_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

/* A barrier of the current team: everyone's release before anyone's acquire. */
#define MPICHECK_BARRIER(call)                                                           \
    do {                                                                                 \
        uint64_t team = mpicheck_team;                                                   \
        int on = team && mpicheck_omp_call();                                            \
        if (on) mpicheck_sync(MPICHECK_SYNC_RELEASE, OBJ_BARRIER(team), __builtin_return_address(0)); \
        call;                                                                            \
        if (on) mpicheck_sync(MPICHECK_SYNC_ACQUIRE, OBJ_BARRIER(team), __builtin_return_address(0)); \
    } while (0)

void GOMP_barrier(void)
{
    REAL(GOMP_barrier);
    MPICHECK_BARRIER(real_GOMP_barrier());
}

bool GOMP_barrier_cancel(void)
{
    REAL(GOMP_barrier_cancel);
    bool ret;
    MPICHECK_BARRIER(ret = real_GOMP_barrier_cancel());
    return ret;
}

void GOMP_loop_end(void)
{
    REAL(GOMP_loop_end);
    MPICHECK_BARRIER(real_GOMP_loop_end());
}

bool GOMP_loop_end_cancel(void)
{
    REAL(GOMP_loop_end_cancel);
    bool ret;
    MPICHECK_BARRIER(ret = real_GOMP_loop_end_cancel());
    return ret;
}

void GOMP_sections_end(void)
{
    REAL(GOMP_sections_end);
    MPICHECK_BARRIER(real_GOMP_sections_end());
}

bool GOMP_sections_end_cancel(void)
{
    REAL(GOMP_sections_end_cancel);
    bool ret;
    MPICHECK_BARRIER(ret = real_GOMP_sections_end_cancel());
    return ret;
}

/* Blocks of worksharing constructs. Under MPI_THREAD_FUNNELED an MPI call in a `single`
 * block or a section breaks the level in a run where another thread of the team executes it,
 * even when the main thread did in this one (`master`/`masked` do not: they compile to a test
 * of omp_get_thread_num). The compiler calls GOMP_single_start (or GOMP_single_copy_start)
 * and GOMP_sections_start/next before each block but nothing at the end of a `single nowait`:
 * the block is taken to end at the thread's next record of any kind (a barrier, the next
 * construct, a lock, the end of the region), or at its next call of omp_get_thread_num
 * (how `master` and the usual `if (omp_get_thread_num() == 0)` begin), so that a call the
 * main thread makes after the block is never taken for one inside it. Static worksharing
 * loops call nothing per iteration and are not observed. */
static inline void mpicheck_workshare(int runs_block, uint64_t object, const void *site)
{
    if (!mpicheck_omp_call() || !mpicheck_team) return;
    if (runs_block)
        mpicheck_sync(MPICHECK_SYNC_WORKSHARE_BEGIN, object, site);
    else if (mpicheck_in_workshare)
        mpicheck_sync(MPICHECK_SYNC_WORKSHARE_END, 0, site);
}

bool GOMP_single_start(void)
{
    REAL(GOMP_single_start);
    bool ret = real_GOMP_single_start();
    mpicheck_workshare(ret, WORKSHARE_SINGLE(mpicheck_team), __builtin_return_address(0));
    return ret;
}

/* `single copyprivate`: NULL for the thread that executes the block. */
void *GOMP_single_copy_start(void)
{
    REAL(GOMP_single_copy_start);
    void *ret = real_GOMP_single_copy_start();
    mpicheck_workshare(ret == NULL, WORKSHARE_SINGLE(mpicheck_team), __builtin_return_address(0));
    return ret;
}

void GOMP_single_copy_end(void *data)
{
    REAL(GOMP_single_copy_end);
    mpicheck_workshare(0, 0, __builtin_return_address(0));
    real_GOMP_single_copy_end(data);
}

/* The number of the section this thread runs next, 0 when none is left. */
unsigned GOMP_sections_start(unsigned count)
{
    REAL(GOMP_sections_start);
    unsigned ret = real_GOMP_sections_start(count);
    mpicheck_workshare(ret != 0, WORKSHARE_SECTION(mpicheck_team), __builtin_return_address(0));
    return ret;
}

unsigned GOMP_sections_next(void)
{
    REAL(GOMP_sections_next);
    unsigned ret = real_GOMP_sections_next();
    mpicheck_workshare(ret != 0, WORKSHARE_SECTION(mpicheck_team), __builtin_return_address(0));
    return ret;
}

void GOMP_sections_end_nowait(void)
{
    REAL(GOMP_sections_end_nowait);
    mpicheck_workshare(0, 0, __builtin_return_address(0));
    real_GOMP_sections_end_nowait();
}

int omp_get_thread_num(void)
{
    REAL(omp_get_thread_num);
    if (__builtin_expect(mpicheck_in_workshare, 0)) mpicheck_workshare(0, 0, __builtin_return_address(0));
    return real_omp_get_thread_num();
}

/* Mutual exclusion: acquire after the real lock returns, release before the real unlock. */
#define MPICHECK_LOCK(object, call)                                                      \
    do {                                                                                 \
        call;                                                                            \
        if (mpicheck_omp_call() && mpicheck_multi_threaded())                       \
            mpicheck_sync(MPICHECK_SYNC_ACQUIRE, object, __builtin_return_address(0)); \
    } while (0)
#define MPICHECK_UNLOCK(object, call)                                                    \
    do {                                                                                 \
        if (mpicheck_omp_call() && mpicheck_multi_threaded())                       \
            mpicheck_sync(MPICHECK_SYNC_RELEASE, object, __builtin_return_address(0)); \
        call;                                                                            \
    } while (0)

void GOMP_critical_start(void)
{
    REAL(GOMP_critical_start);
    MPICHECK_LOCK(OBJ_CRITICAL, real_GOMP_critical_start());
}

void GOMP_critical_end(void)
{
    REAL(GOMP_critical_end);
    MPICHECK_UNLOCK(OBJ_CRITICAL, real_GOMP_critical_end());
}

void GOMP_critical_name_start(void **pptr)
{
    REAL(GOMP_critical_name_start);
    MPICHECK_LOCK((uint64_t)(uintptr_t)pptr, real_GOMP_critical_name_start(pptr));
}

void GOMP_critical_name_end(void **pptr)
{
    REAL(GOMP_critical_name_end);
    MPICHECK_UNLOCK((uint64_t)(uintptr_t)pptr, real_GOMP_critical_name_end(pptr));
}

void GOMP_atomic_start(void)
{
    REAL(GOMP_atomic_start);
    MPICHECK_LOCK(OBJ_ATOMIC, real_GOMP_atomic_start());
}

void GOMP_atomic_end(void)
{
    REAL(GOMP_atomic_end);
    MPICHECK_UNLOCK(OBJ_ATOMIC, real_GOMP_atomic_end());
}

void GOMP_ordered_start(void)
{
    REAL(GOMP_ordered_start);
    MPICHECK_LOCK(OBJ_ORDERED(mpicheck_team), real_GOMP_ordered_start());
}

void GOMP_ordered_end(void)
{
    REAL(GOMP_ordered_end);
    MPICHECK_UNLOCK(OBJ_ORDERED(mpicheck_team), real_GOMP_ordered_end());
}

/* omp_lock_t and omp_nest_lock_t are only passed through: their address is the object. */
void omp_set_lock(void *lock)
{
    REAL(omp_set_lock);
    MPICHECK_LOCK((uint64_t)(uintptr_t)lock, real_omp_set_lock(lock));
}

void omp_unset_lock(void *lock)
{
    REAL(omp_unset_lock);
    MPICHECK_UNLOCK((uint64_t)(uintptr_t)lock, real_omp_unset_lock(lock));
}

int omp_test_lock(void *lock)
{
    REAL(omp_test_lock);
    int ret = real_omp_test_lock(lock);
    if (ret && mpicheck_omp_call() && mpicheck_multi_threaded())
        mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)lock, __builtin_return_address(0));
    return ret;
}

void omp_set_nest_lock(void *lock)
{
    REAL(omp_set_nest_lock);
    MPICHECK_LOCK((uint64_t)(uintptr_t)lock, real_omp_set_nest_lock(lock));
}

void omp_unset_nest_lock(void *lock)
{
    REAL(omp_unset_nest_lock);
    MPICHECK_UNLOCK((uint64_t)(uintptr_t)lock, real_omp_unset_nest_lock(lock));
}

int omp_test_nest_lock(void *lock)
{
    REAL(omp_test_nest_lock);
    int ret = real_omp_test_nest_lock(lock);
    if (ret && mpicheck_omp_call() && mpicheck_multi_threaded())
        mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)lock, __builtin_return_address(0));
    return ret;
}

/* ---- POSIX threads --------------------------------------------------------------------- */

struct mpicheck_thread_start {
    void *(*start)(void *);
    void *arg;
    uint64_t token;
};

/* This thread was started through mpicheck_thread_body (its end is recorded). */
static __thread int mpicheck_tracked_thread;

static void *mpicheck_thread_body(void *p)
{
    struct mpicheck_thread_start s = *(struct mpicheck_thread_start *)p;
    free(p);
    mpicheck_tracked_thread = 1;
    mpicheck_sync(MPICHECK_SYNC_ACQUIRE, OBJ_THREAD_START(s.token), (const void *)s.start);
    void *ret = s.start(s.arg);
    mpicheck_sync(MPICHECK_SYNC_RELEASE, OBJ_THREAD_END((uintptr_t)pthread_self()), (const void *)s.start);
    return ret;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    REAL(pthread_create);
    const void *site = __builtin_return_address(0);
    struct mpicheck_thread_start *s = mpicheck_app_call(site) ? malloc(sizeof *s) : NULL;
    if (!s) return real_pthread_create(thread, attr, start, arg);
    atomic_store_explicit(&mpicheck_multi, 1, memory_order_relaxed);
    s->start = start;
    s->arg = arg;
    s->token = atomic_fetch_add(&mpicheck_next_token, 1);
    mpicheck_sync(MPICHECK_SYNC_RELEASE, OBJ_THREAD_START(s->token), site);
    int ret = real_pthread_create(thread, attr, mpicheck_thread_body, s);
    if (ret != 0) free(s);
    return ret;
}

/* A thread that ends with pthread_exit does not return through mpicheck_thread_body. */
void pthread_exit(void *retval)
{
    REAL(pthread_exit);
    if (mpicheck_tracked_thread)
        mpicheck_sync(MPICHECK_SYNC_RELEASE, OBJ_THREAD_END((uintptr_t)pthread_self()), __builtin_return_address(0));
    real_pthread_exit(retval);
    __builtin_unreachable();
}

int pthread_join(pthread_t thread, void **retval)
{
    REAL(pthread_join);
    const void *site = __builtin_return_address(0);
    int ret = real_pthread_join(thread, retval);
    if (ret == 0 && mpicheck_app_call(site))
        mpicheck_sync(MPICHECK_SYNC_ACQUIRE, OBJ_THREAD_END((uintptr_t)thread), site);
    return ret;
}

int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    REAL(pthread_mutex_lock);
    const void *site = __builtin_return_address(0);
    int ret = real_pthread_mutex_lock(mutex);
    if (ret == 0 && mpicheck_multi_threaded() && mpicheck_app_call(site)) mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)mutex, site);
    return ret;
}

int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    REAL(pthread_mutex_trylock);
    const void *site = __builtin_return_address(0);
    int ret = real_pthread_mutex_trylock(mutex);
    if (ret == 0 && mpicheck_multi_threaded() && mpicheck_app_call(site)) mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)mutex, site);
    return ret;
}

int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    REAL(pthread_mutex_unlock);
    const void *site = __builtin_return_address(0);
    if (mpicheck_multi_threaded() && mpicheck_app_call(site))
        mpicheck_sync(MPICHECK_SYNC_RELEASE, (uint64_t)(uintptr_t)mutex, site);
    return real_pthread_mutex_unlock(mutex);
}

/* A condition wait unlocks the mutex and locks it again before returning. */
int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    REAL(pthread_cond_wait);
    const void *site = __builtin_return_address(0);
    int app = mpicheck_multi_threaded() && mpicheck_app_call(site);
    if (app) mpicheck_sync(MPICHECK_SYNC_RELEASE, (uint64_t)(uintptr_t)mutex, site);
    int ret = real_pthread_cond_wait(cond, mutex);
    if (app) mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)mutex, site);
    return ret;
}

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime)
{
    REAL(pthread_cond_timedwait);
    const void *site = __builtin_return_address(0);
    int app = mpicheck_multi_threaded() && mpicheck_app_call(site);
    if (app) mpicheck_sync(MPICHECK_SYNC_RELEASE, (uint64_t)(uintptr_t)mutex, site);
    int ret = real_pthread_cond_timedwait(cond, mutex, abstime);
    if (app) mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)mutex, site);
    return ret;
}

/* A POSIX barrier: every thread's release before any thread's acquire. */
int pthread_barrier_wait(pthread_barrier_t *barrier)
{
    REAL(pthread_barrier_wait);
    const void *site = __builtin_return_address(0);
    int app = mpicheck_multi_threaded() && mpicheck_app_call(site);
    if (app) mpicheck_sync(MPICHECK_SYNC_RELEASE, (uint64_t)(uintptr_t)barrier, site);
    int ret = real_pthread_barrier_wait(barrier);
    if (app) mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)barrier, site);
    return ret;
}

int pthread_spin_lock(pthread_spinlock_t *lock)
{
    REAL(pthread_spin_lock);
    const void *site = __builtin_return_address(0);
    int ret = real_pthread_spin_lock(lock);
    if (ret == 0 && mpicheck_multi_threaded() && mpicheck_app_call(site))
        mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)lock, site);
    return ret;
}

int pthread_spin_unlock(pthread_spinlock_t *lock)
{
    REAL(pthread_spin_unlock);
    const void *site = __builtin_return_address(0);
    if (mpicheck_multi_threaded() && mpicheck_app_call(site))
        mpicheck_sync(MPICHECK_SYNC_RELEASE, (uint64_t)(uintptr_t)lock, site);
    return real_pthread_spin_unlock(lock);
}

/* Semaphores: a post releases, a successful wait acquires what the posts released. */
int sem_post(sem_t *sem)
{
    REAL(sem_post);
    const void *site = __builtin_return_address(0);
    if (mpicheck_multi_threaded() && mpicheck_app_call(site))
        mpicheck_sync(MPICHECK_SYNC_RELEASE, (uint64_t)(uintptr_t)sem, site);
    return real_sem_post(sem);
}

int sem_wait(sem_t *sem)
{
    REAL(sem_wait);
    const void *site = __builtin_return_address(0);
    int ret = real_sem_wait(sem);
    if (ret == 0 && mpicheck_multi_threaded() && mpicheck_app_call(site))
        mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)sem, site);
    return ret;
}

int sem_trywait(sem_t *sem)
{
    REAL(sem_trywait);
    const void *site = __builtin_return_address(0);
    int ret = real_sem_trywait(sem);
    if (ret == 0 && mpicheck_multi_threaded() && mpicheck_app_call(site))
        mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)sem, site);
    return ret;
}

int sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
    REAL(sem_timedwait);
    const void *site = __builtin_return_address(0);
    int ret = real_sem_timedwait(sem, abstime);
    if (ret == 0 && mpicheck_multi_threaded() && mpicheck_app_call(site))
        mpicheck_sync(MPICHECK_SYNC_ACQUIRE, (uint64_t)(uintptr_t)sem, site);
    return ret;
}
