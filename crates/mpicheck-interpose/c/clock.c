/* Clock reads outside MPI. A thread that polls MPI in a loop (MPI_Test, MPI_Iprobe) and reads
 * the clock between its polls may be waiting for a time, not only for a message: its loop can
 * end without any other process moving. The genome assembler Ray's work loop is such a loop
 * (hundreds of millions of gettimeofday and time calls, phases that end on a timer), and
 * `mpicheck run` took it for a deadlock and ended the job. The recorder counts these reads in
 * the trace header, where the watcher sees them (the watcher counts a change as progress, as
 * it does an MPI_Wtime record).
 *
 * Only threads that call MPI count (MPI's own progress threads read clocks too), and only
 * outside MPI calls (MPI reads clocks for its own timeouts). Reads through the vDSO that do
 * not go through these symbols (a libc-internal call) are not seen. */
#define _GNU_SOURCE
#include "mpicheck_interpose.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int (*mpicheck_real_clock_gettime)(clockid_t, struct timespec *);
static int (*mpicheck_real_gettimeofday)(struct timeval *, void *);
static time_t (*mpicheck_real_time)(time_t *);

__attribute__((constructor)) static void mpicheck_clock_init(void)
{
    mpicheck_real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
    mpicheck_real_gettimeofday = dlsym(RTLD_NEXT, "gettimeofday");
    mpicheck_real_time = dlsym(RTLD_NEXT, "time");
}

static inline void mpicheck_clock_read(void)
{
    if (mpicheck_depth == 0 && mpicheck_thread_slot != 0) mpicheck_note_clock_read();
}

int clock_gettime(clockid_t clock, struct timespec *tp)
{
    mpicheck_clock_read();
    /* Before the constructor ran (another library's constructor): the system call. */
    if (__builtin_expect(mpicheck_real_clock_gettime == NULL, 0))
        return (int)syscall(SYS_clock_gettime, clock, tp);
    return mpicheck_real_clock_gettime(clock, tp);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    mpicheck_clock_read();
    if (__builtin_expect(mpicheck_real_gettimeofday == NULL, 0))
        return (int)syscall(SYS_gettimeofday, tv, tz);
    return mpicheck_real_gettimeofday(tv, tz);
}

time_t time(time_t *tloc)
{
    mpicheck_clock_read();
    if (__builtin_expect(mpicheck_real_time == NULL, 0)) {
        struct timespec now;
        syscall(SYS_clock_gettime, CLOCK_REALTIME, &now);
        if (tloc) *tloc = now.tv_sec;
        return now.tv_sec;
    }
    return mpicheck_real_time(tloc);
}
