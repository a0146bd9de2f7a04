/* Helpers shared by the generated wrappers (c/generated/) and implemented in support.c.
 * Compiled with the MPI family's own mpicc, so MPI types and constants are that family's. */
#ifndef MPICHECK_INTERPOSE_H
#define MPICHECK_INTERPOSE_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "mpicheck_recorder.h"

/* A handle, integer or address as one argument word: handles are ints (MPICH) or pointers
 * (Open MPI); both go through intptr_t so the raw bits are kept. */
#define MPICHECK_W(x) ((int64_t)(intptr_t)(x))
/* Element count of an array for sizing: -1 (not recorded) takes no words. */
#define MPICHECK_POS(n) ((n) > 0 ? (n) : 0)
/* Bytes of one scalar argument word of C type T (trace format 4): 4 for a 4-byte type (int,
 * MPICH's handles), 8 otherwise; a type of another size fails the build (negative array). */
#define MPICHECK_WIDTH(T) \
    (sizeof(char[sizeof(T) == 4 || sizeof(T) == 8 ? 1 : -1]) && sizeof(T) == 4 ? 4u : 8u)
/* A byte count rounded up to a multiple of 8: where an array or status of 8-byte words starts. */
#define MPICHECK_ALIGN8(n) (((n) + 7) / 8 * 8)
/* The byte cursor p moved to its next multiple of 8 (records start 8-byte aligned), as 8-byte
 * words. */
#define MPICHECK_ALIGN8_PTR(p) ((int64_t *)(((uintptr_t)(p) + 7) & ~(uintptr_t)7))
/* Stores a word of `width` bytes (4: the value's low half, read back sign-extended) at p,
 * unaligned; PUT advances p. */
#define MPICHECK_SET(p, width, value)                                          \
    do {                                                                       \
        int64_t mpicheck_value_ = (value);                                     \
        if ((width) == 4) {                                                    \
            int32_t mpicheck_low_ = (int32_t)mpicheck_value_;                  \
            __builtin_memcpy((p), &mpicheck_low_, 4);                          \
        } else {                                                               \
            __builtin_memcpy((p), &mpicheck_value_, 8);                        \
        }                                                                      \
    } while (0)
#define MPICHECK_PUT(p, width, value)     \
    do {                                  \
        MPICHECK_SET((p), (width), (value)); \
        (p) += (width);                   \
    } while (0)
/* Arrays longer than this are not recorded (length -1): a garbage count must not make the
 * wrapper reserve gigabytes or overflow a record's word count. */
#define MPICHECK_MAX_ARRAY ((int64_t)1 << 24)
/* The length to record of an array argument of n entries of `size` bytes at p: -1 (not
 * recorded) when p is NULL, n is above MPICHECK_MAX_ARRAY, or the entries are not all
 * readable. A wrong count that MPI rejects before reading the array must not make the
 * wrapper read past the end of the user's memory and fault where MPI would not. An array
 * within one page is read: MPI reads its first entry too. Longer ones are probed page by
 * page without a signal (support.c). */
int64_t mpicheck_array_len_probed(const void *p, int64_t n, size_t size);
static inline int64_t mpicheck_array_len(const void *p, int64_t n, size_t size)
{
    if (p == NULL || n > MPICHECK_MAX_ARRAY) return -1;
    if (n <= 0) return n;
    uintptr_t first = (uintptr_t)p, last = first + (uintptr_t)n * size - 1;
    if (last >> 12 == first >> 12) return n;
    return mpicheck_array_len_probed(p, n, size);
}
/* The length to record of an array the wrapper does not read from the user's memory
 * (statuses, which it substitutes or MPI fills). */
static inline int64_t mpicheck_len_cap(int64_t n)
{
    return n > MPICHECK_MAX_ARRAY ? -1 : n;
}
/* Statuses substituted for MPI_STATUSES_IGNORE live on the stack up to this count. */
#define MPICHECK_STACK_STATUSES 16
/* A substituted status (n of them), zeroed before MPI fills what it fills (see the
 * generator's "Status substitution"). */
static inline MPI_Status *mpicheck_status_zeroed(MPI_Status *s, int64_t n)
{
    __builtin_memset(s, 0, sizeof(MPI_Status) * (size_t)n);
    return s;
}

/* Writes a status as MPICHECK_STATUS_WORDS 8-byte words (trace format 4, shape `st3`): source
 * (low half) and tag (high half), error (low half), bytes received. */
#define MPICHECK_STATUS_WORDS 3
void mpicheck_put_status(int64_t *w, const MPI_Status *status);
/* A status that MPI did not fill (test not complete, beyond outcount): all -1. */
void mpicheck_put_status_none(int64_t *w);

/* Where the bytes a status received are read from its own fields (MPICH; Open MPI without
 * MPI_Get_count_c, known once have.h was included), mpicheck_put_status is inline: a counted
 * MPI_Recv spent ~20 instructions in the call. The standard ABI asks the library (support.c). */
#if defined(MPICHECK_FAMILY_MPICH) || \
    (defined(MPICHECK_FAMILY_OPENMPI) && defined(MPICHECK_HAVE_MPI_Send) && !defined(MPICHECK_HAVE_MPI_Get_count_c))
#define MPICHECK_STATUS_FIELDS 1
/* The bytes `status` says were received, as that MPI's `MPI_Get_count(status, MPI_BYTE)` reads
 * them, -1 for MPI_UNDEFINED. */
static inline int64_t mpicheck_status_bytes_fields(const MPI_Status *status)
{
#if defined(MPICHECK_FAMILY_MPICH)
    /* MPICH's MPIR_STATUS_GET_COUNT: the count's low int, then its high bits above the
     * cancelled bit; MPI_BYTE's size is 1, so every count is whole. */
    return (int64_t)((((uint64_t)((unsigned int)status->count_hi_and_cancelled >> 1)) << 32) +
                     (unsigned int)status->count_lo);
#else
    /* Open MPI 4's MPI_Get_count: MPI_UNDEFINED from INT_MAX elements on. */
    return status->_ucount >= (size_t)0x7fffffff ? -1 : (int64_t)status->_ucount;
#endif
}
static inline __attribute__((always_inline)) void mpicheck_put_status_fields(int64_t *w, const MPI_Status *status)
{
    if (__builtin_expect(status == NULL || status == MPI_STATUS_IGNORE, 0)) {
        mpicheck_put_status_none(w);
        return;
    }
    /* Source (low half) and tag, error (low half) and 0: two ints per word. */
    w[0] = (int64_t)((uint64_t)(uint32_t)status->MPI_SOURCE | (uint64_t)(uint32_t)status->MPI_TAG << 32);
    w[1] = (int64_t)(uint64_t)(uint32_t)status->MPI_ERROR;
    w[2] = mpicheck_status_bytes_fields(status);
}
#define mpicheck_put_status(w, status) mpicheck_put_status_fields((w), (status))
#endif

/* Array lengths the API description gives only in prose. */
int64_t mpicheck_coll_size(MPI_Comm comm);  /* remote group size for intercomms, else size */
int64_t mpicheck_local_size(MPI_Comm comm);
int64_t mpicheck_in_degree(MPI_Comm comm);  /* neighborhood collectives */
int64_t mpicheck_out_degree(MPI_Comm comm);
int64_t mpicheck_cartdim(MPI_Comm comm);
int64_t mpicheck_sum(const int *values, int n); /* -1 when not all readable */
int64_t mpicheck_last_entry(const int *values, int n); /* values[n - 1]; 0 for n <= 0; -1 unreadable */
int64_t mpicheck_weights_len(const int *weights, int64_t n); /* -1 for MPI_UNWEIGHTED etc. */
int mpicheck_is_root(MPI_Comm comm, int root);
int64_t mpicheck_root_len(MPI_Comm comm, int root, int64_t n);

/* Pseudo-records after communicator creation and datatype commit. */
void mpicheck_comm_info(uint16_t id, MPI_Comm comm, const void *site, uint8_t flags);
void mpicheck_type_info(uint16_t id, MPI_Datatype type, const void *site, uint8_t flags);

/* Keyval constructors (callbacks.c): the program's attribute functions behind trampolines
 * that record the MPI calls they make; the state is given to MPI as extra_state. */
void *mpicheck_keyval_state(void (*copy)(void), void (*del)(void), void *extra);
int mpicheck_comm_copy_trampoline(MPI_Comm, int, void *, void *, void *, int *);
int mpicheck_comm_delete_trampoline(MPI_Comm, int, void *, void *);
int mpicheck_type_copy_trampoline(MPI_Datatype, int, void *, void *, void *, int *);
int mpicheck_type_delete_trampoline(MPI_Datatype, int, void *, void *);
int mpicheck_win_copy_trampoline(MPI_Win, int, void *, void *, void *, int *);
int mpicheck_win_delete_trampoline(MPI_Win, int, void *, void *);

/* MPI_Init* returned successfully (idempotent: C and Fortran wrappers may both call it). */
void mpicheck_after_init(void);
/* MPI_Finalize returned successfully. */
void mpicheck_after_finalize(void);

/* Prepares recording synchronization between threads (threads.c), unless MPICHECK_THREADS=0;
 * called by the constructor. */
void mpicheck_threads_prepare(void);
/* The trace was just opened (the process's first MPI call): says that threads are tracked. */
void mpicheck_threads_on_start(void);

/* Buffer checking (buffers.c, on with MPICHECK_CHECK_BUFFERS=1): nonzero while on. The
 * wrappers call enter/leave around every outermost MPI call (buffers are unprotected while
 * any thread is inside MPI), post after a nonblocking send or receive returned, persistent
 * after a persistent send or receive was made, started after MPI_Start(all), forget after
 * MPI_Request_free, and mark/settle around the calls that may complete requests. */
extern int mpicheck_buffers_on;
void mpicheck_buffers_enter(void);
void mpicheck_buffers_leave(void);
void mpicheck_buffers_post(const void *buf, int64_t count, MPI_Datatype type, MPI_Request req, int recv,
                           const void *site);
void mpicheck_buffers_persistent(const void *buf, int64_t count, MPI_Datatype type, MPI_Request req, int recv);
void mpicheck_buffers_started(const MPI_Request *reqs, int n, const void *site);
void mpicheck_buffers_forget(MPI_Request req);
uint64_t mpicheck_buffers_mark(const MPI_Request *reqs, int n);
void mpicheck_buffers_settle(const MPI_Request *reqs, int n, uint64_t mark, int ok, int all, int ndone,
                             const int *done);
/* For the hooks of buffers_coll.c: 1 when count elements of the type cover exactly
 * [true_lb, + count * size) from the buffer; watching [start, end) (memory checks, counts);
 * counting a buffer left unwatched. */
/* RMA: a window's local memory (never protected, nor pages shared with it; base NULL: all
 * of the window's), the origin buffer of MPI_Put/MPI_Accumulate watched until a call that
 * completes the operations to that target at the origin (all: to every target). */
void mpicheck_buffers_window(MPI_Win win, const void *base, int64_t size);
void mpicheck_buffers_window_gone(MPI_Win win, const void *base);
void mpicheck_buffers_rma(const void *buf, int64_t count, MPI_Datatype type, int target, MPI_Win win, int recv,
                          const void *site);
void mpicheck_buffers_epoch_end(MPI_Win win, int target, int all);
/* Nonblocking collectives (buffers_coll.c), after the call returned a request. */
void mpicheck_buffers_ibcast(void *buf, int64_t count, MPI_Datatype type, int root, MPI_Comm comm,
                             MPI_Request req, const void *site);
void mpicheck_buffers_ireduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int root,
                              int kind, MPI_Comm comm, MPI_Request req, const void *site);
void mpicheck_buffers_ireduce_scatter(const void *sendbuf, void *recvbuf, int64_t recvcount, const void *recvcounts,
                                      MPI_Datatype type, MPI_Comm comm, int big, MPI_Request req, const void *site);
void mpicheck_buffers_igather(const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int64_t recvcount, const void *recvcounts, const void *displs, MPI_Datatype recvtype,
                              int root, int all, MPI_Comm comm, int big, MPI_Request req, const void *site);
void mpicheck_buffers_iscatter(const void *sendbuf, int64_t sendcount, const void *sendcounts, const void *displs,
                               MPI_Datatype sendtype, void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                               int root, MPI_Comm comm, int big, MPI_Request req, const void *site);
void mpicheck_buffers_ialltoall(const void *sendbuf, int64_t sendcount, const void *sendcounts, const void *sdispls,
                                MPI_Datatype sendtype, const MPI_Datatype *sendtypes, void *recvbuf,
                                int64_t recvcount, const void *recvcounts, const void *rdispls,
                                MPI_Datatype recvtype, const MPI_Datatype *recvtypes, MPI_Comm comm, int big,
                                MPI_Request req, const void *site);
void mpicheck_buffers_ineighbor(int gather, const void *sendbuf, int64_t sendcount, const void *sendcounts,
                                const void *sdispls, MPI_Datatype sendtype, const MPI_Datatype *sendtypes,
                                void *recvbuf, int64_t recvcount, const void *recvcounts, const void *rdispls,
                                MPI_Datatype recvtype, const MPI_Datatype *recvtypes, MPI_Comm comm, int bigc,
                                int bigd, MPI_Request req, const void *site);
/* Between mpicheck_buffers_capture(req, 1) and (req, 0), the ranges a nonblocking
 * collective's watch call gives are kept for the persistent collective request req
 * (MPI_Bcast_init ...) and watched from each MPI_Start. */
void mpicheck_buffers_capture(MPI_Request req, int on);
/* buffers_maps.c: [lo, hi) lies in one private read-write mapping that is not a stack;
 * [lo, hi) is within a page above or 1 MiB below the thread pointer tp (static TLS). */
int mpicheck_buffers_private_rw(uintptr_t lo, uintptr_t hi);
int mpicheck_buffers_near_tls(uintptr_t lo, uintptr_t hi, uintptr_t tp, uintptr_t page_size);
/* What ends a watch: the request's completion (immediate operations: its handle is freed;
 * persistent ones: the completion call says so), or the RMA epoch's closing call. */
enum { MPICHECK_WATCH_REQUEST, MPICHECK_WATCH_PERSISTENT, MPICHECK_WATCH_EPOCH };
/* recv of mpicheck_buffers_watch for a receive buffer that other processes may read while
 * it is pending (a collective's algorithm forwards data from it, a peer's transport reads
 * it with process_vm_readv): protected read-only, so only stores into it are found. */
#define MPICHECK_RECV_READABLE 2
/* recv for a buffer that another process may write while it is pending (RMA results, through
 * process_vm_writev): watched only with protection keys, which such writes ignore. */
#define MPICHECK_RECV_REMOTE 3
int mpicheck_buffers_contiguous(MPI_Datatype type, int64_t *size, int64_t *true_lb);
void mpicheck_buffers_watch(uintptr_t start, uintptr_t end, int kind, MPI_Request req, MPI_Win win, int target,
                            int recv, const void *site);
void mpicheck_buffers_unwatched(void);
void mpicheck_buffers_completed(MPI_Request req);
void mpicheck_buffers_prepare(void);
void mpicheck_buffers_flush(void);
/* MPI_Finalize returned: findings and counts written, nothing watched any more. */
void mpicheck_buffers_finalized(void);
/* libc's write with the memory it reads guarded while buffers are watched
 * (c/buffers_syscalls.c); ret: the return address of the program's call. */
ssize_t mpicheck_guarded_write(int fd, const void *buf, size_t n, const void *ret);

/* The function table, generated, with `s` for every scalar; the width of each scalar field
 * in order (mpicheck_schema_scalars of them), and room for the table with the widths. */
extern const char mpicheck_schema_text[];
extern const unsigned char mpicheck_schema_widths[];
extern const uint32_t mpicheck_schema_scalars;
extern char mpicheck_schema_sized[];

#endif
