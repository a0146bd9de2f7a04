/* How mpicheck learns that MPI ended the process inside a call. With the default error
 * handler (MPI_ERRORS_ARE_FATAL) MPI aborts the job inside the failing call, so the call never
 * returns; the trace must say so, or the analysis would take it for a call blocked forever
 * (a false deadlock). Neither path runs the process's exit handlers:
 * - Open MPI ends the process with _exit;
 * - MPICH asks its process manager to abort the job ("cmd=abort" on the PMI socket) and
 *   waits there until it is killed.
 * Only a thread inside an MPI call (mpicheck_depth > 0) marks the trace: the program's own
 * _exit or write is not MPI's. Both wrappers stay async-signal-safe. */
#define _GNU_SOURCE
#include "mpicheck_interpose.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Noreturn void mpicheck_exit(int status)
{
    if (mpicheck_depth > 0) mpicheck_aborting_in_call(mpicheck_thread_slot);
    /* What glibc's _exit does; calling it through dlsym would not be async-signal-safe. */
    for (;;) syscall(SYS_exit_group, status);
}

void _exit(int status) { mpicheck_exit(status); }
void _Exit(int status) { mpicheck_exit(status); }

ssize_t write(int fd, const void *buf, size_t count)
{
    static const char abort_request[] = "cmd=abort";
    if (__builtin_expect(mpicheck_depth > 0, 0) && count >= sizeof abort_request - 1 &&
        memcmp(buf, abort_request, sizeof abort_request - 1) == 0)
        mpicheck_aborting_in_call(mpicheck_thread_slot);
    /* libc's write, guarded while buffers are watched (c/buffers_syscalls.c). */
    return mpicheck_guarded_write(fd, buf, count, __builtin_return_address(0));
}
