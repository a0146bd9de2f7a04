/* Hand-written runtime support of the generated wrappers: the per-thread depth guard, the
 * constructor that starts the recorder, MPI constants, status and array-length helpers, and
 * the pseudo-records about communicators and datatypes. Compiled with the family's mpicc. */
#define _GNU_SOURCE
#include "have.h"
#include "mpicheck_interpose.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Only the outermost MPI entry point of a thread records (see mpicheck_recorder.h). */
__thread int mpicheck_depth __attribute__((tls_model("initial-exec"))) = 0;
/* The recorder's thread index of this thread, + 1 (see mpicheck_begin_slot). */
__thread uint16_t mpicheck_thread_slot __attribute__((tls_model("initial-exec"))) = 0;
/* The originals of this thread's repeat records (see mpicheck_enter_rep). */
__thread uint64_t mpicheck_repeat_table[MPICHECK_REPEAT_TABLE_WORDS] __attribute__((tls_model("initial-exec")));

/* MPI is usable (between MPI_Init* and MPI_Finalize): helpers that query MPI must not run
 * otherwise, or an erroneous program would be aborted by mpicheck instead of recorded. */
static int mpicheck_mpi_ready;
static MPI_Group mpicheck_world_group = MPI_GROUP_NULL;

/* Every predefined datatype and op this MPI defines (MPI-4.1 names; #ifdef: not all exist everywhere). */
static void mpicheck_each_datatype(void (*f)(const char *, MPI_Datatype, void *), void *arg)
{
#ifdef MPI_CHAR
    f("MPI_CHAR", MPI_CHAR, arg);
#endif
#ifdef MPI_SHORT
    f("MPI_SHORT", MPI_SHORT, arg);
#endif
#ifdef MPI_INT
    f("MPI_INT", MPI_INT, arg);
#endif
#ifdef MPI_LONG
    f("MPI_LONG", MPI_LONG, arg);
#endif
#ifdef MPI_LONG_LONG_INT
    f("MPI_LONG_LONG_INT", MPI_LONG_LONG_INT, arg);
#endif
#ifdef MPI_LONG_LONG
    f("MPI_LONG_LONG", MPI_LONG_LONG, arg);
#endif
#ifdef MPI_SIGNED_CHAR
    f("MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, arg);
#endif
#ifdef MPI_UNSIGNED_CHAR
    f("MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, arg);
#endif
#ifdef MPI_UNSIGNED_SHORT
    f("MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, arg);
#endif
#ifdef MPI_UNSIGNED
    f("MPI_UNSIGNED", MPI_UNSIGNED, arg);
#endif
#ifdef MPI_UNSIGNED_LONG
    f("MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, arg);
#endif
#ifdef MPI_UNSIGNED_LONG_LONG
    f("MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, arg);
#endif
#ifdef MPI_FLOAT
    f("MPI_FLOAT", MPI_FLOAT, arg);
#endif
#ifdef MPI_DOUBLE
    f("MPI_DOUBLE", MPI_DOUBLE, arg);
#endif
#ifdef MPI_LONG_DOUBLE
    f("MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, arg);
#endif
#ifdef MPI_WCHAR
    f("MPI_WCHAR", MPI_WCHAR, arg);
#endif
#ifdef MPI_C_BOOL
    f("MPI_C_BOOL", MPI_C_BOOL, arg);
#endif
#ifdef MPI_INT8_T
    f("MPI_INT8_T", MPI_INT8_T, arg);
#endif
#ifdef MPI_INT16_T
    f("MPI_INT16_T", MPI_INT16_T, arg);
#endif
#ifdef MPI_INT32_T
    f("MPI_INT32_T", MPI_INT32_T, arg);
#endif
#ifdef MPI_INT64_T
    f("MPI_INT64_T", MPI_INT64_T, arg);
#endif
#ifdef MPI_UINT8_T
    f("MPI_UINT8_T", MPI_UINT8_T, arg);
#endif
#ifdef MPI_UINT16_T
    f("MPI_UINT16_T", MPI_UINT16_T, arg);
#endif
#ifdef MPI_UINT32_T
    f("MPI_UINT32_T", MPI_UINT32_T, arg);
#endif
#ifdef MPI_UINT64_T
    f("MPI_UINT64_T", MPI_UINT64_T, arg);
#endif
#ifdef MPI_AINT
    f("MPI_AINT", MPI_AINT, arg);
#endif
#ifdef MPI_COUNT
    f("MPI_COUNT", MPI_COUNT, arg);
#endif
#ifdef MPI_OFFSET
    f("MPI_OFFSET", MPI_OFFSET, arg);
#endif
#ifdef MPI_C_COMPLEX
    f("MPI_C_COMPLEX", MPI_C_COMPLEX, arg);
#endif
#ifdef MPI_C_FLOAT_COMPLEX
    f("MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, arg);
#endif
#ifdef MPI_C_DOUBLE_COMPLEX
    f("MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, arg);
#endif
#ifdef MPI_C_LONG_DOUBLE_COMPLEX
    f("MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, arg);
#endif
#ifdef MPI_BYTE
    f("MPI_BYTE", MPI_BYTE, arg);
#endif
#ifdef MPI_PACKED
    f("MPI_PACKED", MPI_PACKED, arg);
#endif
#ifdef MPI_INTEGER
    f("MPI_INTEGER", MPI_INTEGER, arg);
#endif
#ifdef MPI_REAL
    f("MPI_REAL", MPI_REAL, arg);
#endif
#ifdef MPI_DOUBLE_PRECISION
    f("MPI_DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, arg);
#endif
#ifdef MPI_COMPLEX
    f("MPI_COMPLEX", MPI_COMPLEX, arg);
#endif
#ifdef MPI_LOGICAL
    f("MPI_LOGICAL", MPI_LOGICAL, arg);
#endif
#ifdef MPI_CHARACTER
    f("MPI_CHARACTER", MPI_CHARACTER, arg);
#endif
#ifdef MPI_DOUBLE_COMPLEX
    f("MPI_DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX, arg);
#endif
#ifdef MPI_INTEGER1
    f("MPI_INTEGER1", MPI_INTEGER1, arg);
#endif
#ifdef MPI_INTEGER2
    f("MPI_INTEGER2", MPI_INTEGER2, arg);
#endif
#ifdef MPI_INTEGER4
    f("MPI_INTEGER4", MPI_INTEGER4, arg);
#endif
#ifdef MPI_INTEGER8
    f("MPI_INTEGER8", MPI_INTEGER8, arg);
#endif
#ifdef MPI_INTEGER16
    f("MPI_INTEGER16", MPI_INTEGER16, arg);
#endif
#ifdef MPI_REAL2
    f("MPI_REAL2", MPI_REAL2, arg);
#endif
#ifdef MPI_REAL4
    f("MPI_REAL4", MPI_REAL4, arg);
#endif
#ifdef MPI_REAL8
    f("MPI_REAL8", MPI_REAL8, arg);
#endif
#ifdef MPI_REAL16
    f("MPI_REAL16", MPI_REAL16, arg);
#endif
#ifdef MPI_COMPLEX4
    f("MPI_COMPLEX4", MPI_COMPLEX4, arg);
#endif
#ifdef MPI_COMPLEX8
    f("MPI_COMPLEX8", MPI_COMPLEX8, arg);
#endif
#ifdef MPI_COMPLEX16
    f("MPI_COMPLEX16", MPI_COMPLEX16, arg);
#endif
#ifdef MPI_COMPLEX32
    f("MPI_COMPLEX32", MPI_COMPLEX32, arg);
#endif
#ifdef MPI_CXX_BOOL
    f("MPI_CXX_BOOL", MPI_CXX_BOOL, arg);
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
    f("MPI_CXX_FLOAT_COMPLEX", MPI_CXX_FLOAT_COMPLEX, arg);
#endif
#ifdef MPI_CXX_DOUBLE_COMPLEX
    f("MPI_CXX_DOUBLE_COMPLEX", MPI_CXX_DOUBLE_COMPLEX, arg);
#endif
#ifdef MPI_CXX_LONG_DOUBLE_COMPLEX
    f("MPI_CXX_LONG_DOUBLE_COMPLEX", MPI_CXX_LONG_DOUBLE_COMPLEX, arg);
#endif
#ifdef MPI_FLOAT_INT
    f("MPI_FLOAT_INT", MPI_FLOAT_INT, arg);
#endif
#ifdef MPI_DOUBLE_INT
    f("MPI_DOUBLE_INT", MPI_DOUBLE_INT, arg);
#endif
#ifdef MPI_LONG_INT
    f("MPI_LONG_INT", MPI_LONG_INT, arg);
#endif
#ifdef MPI_2INT
    f("MPI_2INT", MPI_2INT, arg);
#endif
#ifdef MPI_SHORT_INT
    f("MPI_SHORT_INT", MPI_SHORT_INT, arg);
#endif
#ifdef MPI_LONG_DOUBLE_INT
    f("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, arg);
#endif
#ifdef MPI_2REAL
    f("MPI_2REAL", MPI_2REAL, arg);
#endif
#ifdef MPI_2DOUBLE_PRECISION
    f("MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION, arg);
#endif
#ifdef MPI_2INTEGER
    f("MPI_2INTEGER", MPI_2INTEGER, arg);
#endif
}

static void mpicheck_each_op(void (*f)(const char *, MPI_Op, void *), void *arg)
{
#ifdef MPI_MAX
    f("MPI_MAX", MPI_MAX, arg);
#endif
#ifdef MPI_MIN
    f("MPI_MIN", MPI_MIN, arg);
#endif
#ifdef MPI_SUM
    f("MPI_SUM", MPI_SUM, arg);
#endif
#ifdef MPI_PROD
    f("MPI_PROD", MPI_PROD, arg);
#endif
#ifdef MPI_LAND
    f("MPI_LAND", MPI_LAND, arg);
#endif
#ifdef MPI_BAND
    f("MPI_BAND", MPI_BAND, arg);
#endif
#ifdef MPI_LOR
    f("MPI_LOR", MPI_LOR, arg);
#endif
#ifdef MPI_BOR
    f("MPI_BOR", MPI_BOR, arg);
#endif
#ifdef MPI_LXOR
    f("MPI_LXOR", MPI_LXOR, arg);
#endif
#ifdef MPI_BXOR
    f("MPI_BXOR", MPI_BXOR, arg);
#endif
#ifdef MPI_MAXLOC
    f("MPI_MAXLOC", MPI_MAXLOC, arg);
#endif
#ifdef MPI_MINLOC
    f("MPI_MINLOC", MPI_MINLOC, arg);
#endif
#ifdef MPI_REPLACE
    f("MPI_REPLACE", MPI_REPLACE, arg);
#endif
#ifdef MPI_NO_OP
    f("MPI_NO_OP", MPI_NO_OP, arg);
#endif
}

/* ---- statuses -------------------------------------------------------------------------- */

/* Two ints in one little-endian word: `low` in its first 4 bytes, `high` in the next 4. */
static int64_t mpicheck_two_ints(int low, int high)
{
    return (int64_t)((uint64_t)(uint32_t)low | (uint64_t)(uint32_t)high << 32);
}

/* The bytes `status` says were received, as `MPI_Get_count(_c)(status, MPI_BYTE)` gives them,
 * -1 for MPI_UNDEFINED. Where the MPI's layout is known it is read from the status's own
 * fields, as that MPI's MPI_Get_count reads them (mpicheck_interpose.h): through the library
 * it costs ~150 instructions per status, most of a recorded receive's. The standard ABI keeps
 * the count in implementation fields: asked there. */
static int64_t mpicheck_status_bytes(const MPI_Status *status)
{
#if defined(MPICHECK_STATUS_FIELDS)
    return mpicheck_status_bytes_fields(status);
#elif defined(MPICHECK_HAVE_MPI_Get_count_c)
    MPI_Count bytes = -1;
    if (PMPI_Get_count_c(status, MPI_BYTE, &bytes) != MPI_SUCCESS) bytes = -1;
    return bytes == MPI_UNDEFINED ? -1 : (int64_t)bytes;
#else
    int bytes = -1;
    if (PMPI_Get_count(status, MPI_BYTE, &bytes) != MPI_SUCCESS) bytes = -1;
    return bytes == MPI_UNDEFINED ? -1 : (int64_t)bytes;
#endif
}

/* (Parenthesized: where mpicheck_interpose.h makes the name a macro for the inline version,
 * the function is still defined, for callers without have.h.) */
void(mpicheck_put_status)(int64_t *w, const MPI_Status *status)
{
    if (status == NULL || status == MPI_STATUS_IGNORE) {
        mpicheck_put_status_none(w);
        return;
    }
    w[0] = mpicheck_two_ints(status->MPI_SOURCE, status->MPI_TAG);
    w[1] = mpicheck_two_ints(status->MPI_ERROR, 0);
    w[2] = mpicheck_status_bytes(status);
}

void mpicheck_put_status_none(int64_t *w)
{
    w[0] = mpicheck_two_ints(-1, -1);
    w[1] = mpicheck_two_ints(-1, 0);
    w[2] = -1;
}

/* ---- array lengths --------------------------------------------------------------------- */

static int mpicheck_comm_usable(MPI_Comm comm)
{
    return mpicheck_mpi_ready && comm != MPI_COMM_NULL;
}

int64_t mpicheck_local_size(MPI_Comm comm)
{
    int n;
    if (!mpicheck_comm_usable(comm) || PMPI_Comm_size(comm, &n) != MPI_SUCCESS) return -1;
    return n;
}

int64_t mpicheck_coll_size(MPI_Comm comm)
{
    int inter = 0, n;
    if (!mpicheck_comm_usable(comm) || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return -1;
    if (!inter) return mpicheck_local_size(comm);
    if (PMPI_Comm_remote_size(comm, &n) != MPI_SUCCESS) return -1;
    return n;
}

static void mpicheck_degrees(MPI_Comm comm, int64_t *in, int64_t *out)
{
    int topo, a, b, weighted, rank;
    *in = *out = -1;
    if (!mpicheck_comm_usable(comm) || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return;
    if (topo == MPI_DIST_GRAPH) {
        if (PMPI_Dist_graph_neighbors_count(comm, &a, &b, &weighted) == MPI_SUCCESS) {
            *in = a;
            *out = b;
        }
    } else if (topo == MPI_CART) {
        if (PMPI_Cartdim_get(comm, &a) == MPI_SUCCESS) *in = *out = 2 * (int64_t)a;
    } else if (topo == MPI_GRAPH) {
        if (PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && PMPI_Graph_neighbors_count(comm, rank, &a) == MPI_SUCCESS)
            *in = *out = a;
    }
}

int64_t mpicheck_in_degree(MPI_Comm comm)
{
    int64_t in, out;
    mpicheck_degrees(comm, &in, &out);
    return in;
}

int64_t mpicheck_out_degree(MPI_Comm comm)
{
    int64_t in, out;
    mpicheck_degrees(comm, &in, &out);
    return out;
}

int64_t mpicheck_cartdim(MPI_Comm comm)
{
    int topo, n;
    if (!mpicheck_comm_usable(comm) || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS || topo != MPI_CART) return -1;
    if (PMPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return -1;
    return n;
}

int64_t mpicheck_array_len_probed(const void *p, int64_t n, size_t size)
{
    /* One byte of each 4 KiB page the array touches, read with process_vm_readv from this
     * process: an unmapped page makes it return short (EFAULT), never a signal. */
    enum { PAGE = 4096, BATCH = 64 };
    uintptr_t first = (uintptr_t)p, last = first + (uintptr_t)n * size - 1;
    char sink[BATCH];
    struct iovec local = {sink, 0};
    struct iovec remote[BATCH];
    uintptr_t at = first;
    while (at <= last) {
        int k = 0;
        for (; k < BATCH && at <= last; k++) {
            remote[k].iov_base = (void *)at;
            remote[k].iov_len = 1;
            at = (at | (PAGE - 1)) + 1;
        }
        local.iov_len = (size_t)k;
        ssize_t got = process_vm_readv(getpid(), &local, 1, remote, (unsigned long)k, 0);
        if (got < 0 && (errno == ENOSYS || errno == EPERM)) return n; /* cannot tell: trust */
        if (got != k) return -1;
    }
    return n;
}

int64_t mpicheck_last_entry(const int *values, int n)
{
    if (n <= 0) return 0;
    if (mpicheck_array_len(values, n, sizeof *values) != n) return -1;
    return values[n - 1];
}

int64_t mpicheck_sum(const int *values, int n)
{
    if (values == NULL || n < 0) return -1;
    if (mpicheck_array_len(values, n, sizeof *values) != n) return -1;
    int64_t sum = 0;
    for (int i = 0; i < n; i++) sum += values[i];
    return sum;
}

int64_t mpicheck_weights_len(const int *weights, int64_t n)
{
    if (weights == NULL || weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY) return -1;
    return n;
}

int mpicheck_is_root(MPI_Comm comm, int root)
{
    int inter = 0, rank;
    if (!mpicheck_comm_usable(comm) || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    if (inter) return root == MPI_ROOT;
    return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}

int64_t mpicheck_root_len(MPI_Comm comm, int root, int64_t n)
{
    return mpicheck_is_root(comm, root) ? n : -1;
}

/* ---- pseudo-records -------------------------------------------------------------------- */

/* Writes [n, world ranks...] of `group` at w; returns the words written. */
static int64_t mpicheck_put_world_ranks(int64_t *w, MPI_Group group, int n)
{
    w[0] = n;
    if (n <= 0) return 1;
    int *ranks = calloc((size_t)n, sizeof(int));
    int *world = calloc((size_t)n, sizeof(int));
    if (ranks && world && mpicheck_world_group != MPI_GROUP_NULL) {
        for (int i = 0; i < n; i++) ranks[i] = i;
        if (PMPI_Group_translate_ranks(group, n, ranks, mpicheck_world_group, world) == MPI_SUCCESS) {
            for (int i = 0; i < n; i++) w[1 + i] = world[i];
            free(ranks);
            free(world);
            return 1 + n;
        }
    }
    free(world);
    free(ranks);
    for (int i = 0; i < n; i++) w[1 + i] = -1;
    return 1 + n;
}

void mpicheck_comm_info(uint16_t id, MPI_Comm comm, const void *site, uint8_t flags)
{
    if (!mpicheck_comm_usable(comm)) return;
    int inter = 0, n = 0, rn = -1;
    MPI_Group group = MPI_GROUP_NULL, remote = MPI_GROUP_NULL;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS) return;
    PMPI_Group_size(group, &n);
    if (inter && PMPI_Comm_remote_group(comm, &remote) == MPI_SUCCESS) PMPI_Group_size(remote, &rn);
    int64_t *w = mpicheck_begin(id, (uint32_t)(3 + MPICHECK_POS(n) + MPICHECK_POS(rn)), site, flags);
    if (w) {
        int64_t *p = w;
        *p++ = MPICHECK_W(comm);
        p += mpicheck_put_world_ranks(p, group, n);
        if (remote != MPI_GROUP_NULL) {
            mpicheck_put_world_ranks(p, remote, rn);
        } else {
            *p = -1;
        }
        mpicheck_entered(w);
        mpicheck_end(w, MPI_SUCCESS);
    }
    PMPI_Group_free(&group);
    if (remote != MPI_GROUP_NULL) PMPI_Group_free(&remote);
}

void mpicheck_type_info(uint16_t id, MPI_Datatype type, const void *site, uint8_t flags)
{
    if (!mpicheck_mpi_ready || type == MPI_DATATYPE_NULL) return;
    int64_t size = -1;
#ifdef MPICHECK_HAVE_MPI_Type_size_c
    MPI_Count s;
    if (PMPI_Type_size_c(type, &s) == MPI_SUCCESS) size = s;
#else
    int s;
    if (PMPI_Type_size(type, &s) == MPI_SUCCESS) size = s;
#endif
    MPI_Aint lb, extent;
    int64_t ext = -1;
    if (PMPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS) ext = extent;
    /* The bytes an element really touches (RMA target bytes of types with holes or
     * resized bounds); true_extent -1: unknown. */
    MPI_Aint true_lb = 0, true_extent = -1;
    if (PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS) {
        true_lb = 0;
        true_extent = -1;
    }
    int64_t *w = mpicheck_begin(id, 5, site, flags);
    if (w) {
        w[0] = MPICHECK_W(type);
        w[1] = size;
        w[2] = ext;
        w[3] = true_lb;
        w[4] = true_extent;
        mpicheck_entered(w);
        mpicheck_end(w, MPI_SUCCESS);
    }
}

/* ---- constants and process state ------------------------------------------------------- */

static void mpicheck_put_datatype(const char *name, MPI_Datatype type, void *out)
{
    fprintf((FILE *)out, "DATATYPE.%s=%lld\n", name, (long long)MPICHECK_W(type));
}

static void mpicheck_put_datatype_size(const char *name, MPI_Datatype type, void *out)
{
    int size;
    /* An MPI without a type defines it as MPI_DATATYPE_NULL (MPICH); asking its size would
     * be an error that aborts the program. */
    if (type == MPI_DATATYPE_NULL) return;
    if (PMPI_Type_size(type, &size) == MPI_SUCCESS) fprintf((FILE *)out, "DATATYPE_SIZE.%s=%d\n", name, size);
}

static void mpicheck_put_op(const char *name, MPI_Op op, void *out)
{
    fprintf((FILE *)out, "OP.%s=%lld\n", name, (long long)MPICHECK_W(op));
}

#define MPICHECK_CONST(out, name) fprintf(out, "%s=%lld\n", #name, (long long)MPICHECK_W(name))

static char *mpicheck_constants_text(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) return NULL;
    MPICHECK_CONST(out, MPI_COMM_WORLD);
    MPICHECK_CONST(out, MPI_COMM_SELF);
    MPICHECK_CONST(out, MPI_COMM_NULL);
    MPICHECK_CONST(out, MPI_REQUEST_NULL);
    MPICHECK_CONST(out, MPI_GROUP_NULL);
    MPICHECK_CONST(out, MPI_DATATYPE_NULL);
    MPICHECK_CONST(out, MPI_OP_NULL);
    MPICHECK_CONST(out, MPI_INFO_NULL);
    MPICHECK_CONST(out, MPI_WIN_NULL);
    MPICHECK_CONST(out, MPI_FILE_NULL);
    MPICHECK_CONST(out, MPI_MESSAGE_NULL);
    MPICHECK_CONST(out, MPI_MESSAGE_NO_PROC);
    MPICHECK_CONST(out, MPI_ERRHANDLER_NULL);
    MPICHECK_CONST(out, MPI_ANY_SOURCE);
    MPICHECK_CONST(out, MPI_ANY_TAG);
    MPICHECK_CONST(out, MPI_PROC_NULL);
    MPICHECK_CONST(out, MPI_ROOT);
    MPICHECK_CONST(out, MPI_UNDEFINED);
    MPICHECK_CONST(out, MPI_IN_PLACE);
    MPICHECK_CONST(out, MPI_BOTTOM);
    MPICHECK_CONST(out, MPI_STATUS_IGNORE);
    MPICHECK_CONST(out, MPI_STATUSES_IGNORE);
    MPICHECK_CONST(out, MPI_SUCCESS);
    MPICHECK_CONST(out, MPI_THREAD_SINGLE);
    MPICHECK_CONST(out, MPI_THREAD_FUNNELED);
    MPICHECK_CONST(out, MPI_THREAD_SERIALIZED);
    MPICHECK_CONST(out, MPI_THREAD_MULTIPLE);
#ifdef MPI_SESSION_NULL
    MPICHECK_CONST(out, MPI_SESSION_NULL);
#endif
    MPICHECK_CONST(out, MPI_KEYVAL_INVALID);
    MPICHECK_CONST(out, MPI_BSEND_OVERHEAD);
    /* Predefined objects a program never creates nor frees (besides datatypes and ops). */
    fprintf(out, "HANDLE.MPI_GROUP_EMPTY=%lld\n", (long long)MPICHECK_W(MPI_GROUP_EMPTY));
    fprintf(out, "HANDLE.MPI_ERRORS_ARE_FATAL=%lld\n", (long long)MPICHECK_W(MPI_ERRORS_ARE_FATAL));
    fprintf(out, "HANDLE.MPI_ERRORS_RETURN=%lld\n", (long long)MPICHECK_W(MPI_ERRORS_RETURN));
#ifdef MPI_ERRORS_ABORT
    fprintf(out, "HANDLE.MPI_ERRORS_ABORT=%lld\n", (long long)MPICHECK_W(MPI_ERRORS_ABORT));
#endif
#ifdef MPI_INFO_ENV
    fprintf(out, "HANDLE.MPI_INFO_ENV=%lld\n", (long long)MPICHECK_W(MPI_INFO_ENV));
#endif
    mpicheck_each_datatype(mpicheck_put_datatype, out);
    mpicheck_each_op(mpicheck_put_op, out);
    fclose(out);
    return text;
}

static char *mpicheck_read_file(const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
        fclose(out);
    }
    fclose(in);
    return text;
}

/* The split types of MPI_Comm_split_type this library defines, comma-separated (AR011):
 * MPICH's are macros; Open MPI's and the standard ABI's are enumerators, listed for the
 * versions whose mpi.h was read (Open MPI 4.x: MPI_COMM_TYPE_SHARED..OMPI_COMM_TYPE_CLUSTER).
 * Where the list is not known, nothing is written and split types are not judged. */
static void mpicheck_put_split_types(FILE *out)
{
    static const int types[] = {
#if defined(MPICHECK_FAMILY_MPIABI)
        MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_HW_GUIDED,
        MPI_COMM_TYPE_RESOURCE_GUIDED,
#elif defined(OPEN_MPI)
#if OMPI_MAJOR_VERSION == 4
        MPI_COMM_TYPE_SHARED, OMPI_COMM_TYPE_HWTHREAD, OMPI_COMM_TYPE_CORE,
        OMPI_COMM_TYPE_L1CACHE, OMPI_COMM_TYPE_L2CACHE, OMPI_COMM_TYPE_L3CACHE,
        OMPI_COMM_TYPE_SOCKET, OMPI_COMM_TYPE_NUMA, OMPI_COMM_TYPE_BOARD,
        OMPI_COMM_TYPE_HOST, OMPI_COMM_TYPE_CU, OMPI_COMM_TYPE_CLUSTER,
#endif
#elif defined(MPICH)
        MPI_COMM_TYPE_SHARED,
#ifdef MPI_COMM_TYPE_HW_GUIDED
        MPI_COMM_TYPE_HW_GUIDED,
#endif
#ifdef MPI_COMM_TYPE_HW_UNGUIDED
        MPI_COMM_TYPE_HW_UNGUIDED,
#endif
#ifdef MPI_COMM_TYPE_RESOURCE_GUIDED
        MPI_COMM_TYPE_RESOURCE_GUIDED,
#endif
#ifdef MPIX_COMM_TYPE_NEIGHBORHOOD
        MPIX_COMM_TYPE_NEIGHBORHOOD,
#endif
#endif
        -1 /* end: not a split type */
    };
    size_t n = sizeof types / sizeof types[0] - 1;
    if (n == 0) return;
    fputs("MPI_COMM_TYPE_VALUES=", out);
    for (size_t i = 0; i < n; i++) fprintf(out, "%s%d", i ? "," : "", types[i]);
    fputc('\n', out);
}

void mpicheck_after_init(void)
{
    static int done;
    if (done) return;
    done = 1;
    mpicheck_mpi_ready = 1;
    int rank = -1, size = -1, provided = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Query_thread(&provided);
    PMPI_Comm_group(MPI_COMM_WORLD, &mpicheck_world_group);
    mpicheck_initialized(rank, size, provided);
    /* MPI_Init loads the MPI's plugins: the memory map changed. */
    char *maps = mpicheck_read_file("/proc/self/maps");
    if (maps) {
        mpicheck_text(MPICHECK_TEXT_PROC_MAPS, maps);
        free(maps);
    }
    /* Datatype sizes can only be asked once MPI is initialized: a second constants record,
     * complete in itself (a reader may keep only the last one). */
    char *handles = mpicheck_constants_text();
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out) {
        if (handles) fputs(handles, out);
        mpicheck_each_datatype(mpicheck_put_datatype_size, out);
        /* The largest valid tag is an attribute of MPI_COMM_WORLD, known once MPI runs. */
        int *tag_ub = NULL, flag = 0;
        if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag) == MPI_SUCCESS && flag && tag_ub)
            fprintf(out, "MPI_TAG_UB_VALUE=%d\n", *tag_ub);
        /* The fence assertions that must agree across a window's members (CO005), and the
         * other RMA assertions, whose values differ between MPIs (AR015). */
        fprintf(out, "MPI_MODE_NOPRECEDE_VALUE=%d\nMPI_MODE_NOSUCCEED_VALUE=%d\n",
                (int)MPI_MODE_NOPRECEDE, (int)MPI_MODE_NOSUCCEED);
        /* Lock types of MPI_Win_lock (shared locks allow concurrent epochs, DR003). */
        fprintf(out, "MPI_LOCK_EXCLUSIVE_VALUE=%d\nMPI_LOCK_SHARED_VALUE=%d\n",
                (int)MPI_LOCK_EXCLUSIVE, (int)MPI_LOCK_SHARED);
        fprintf(out, "MPI_MODE_NOCHECK_VALUE=%d\nMPI_MODE_NOSTORE_VALUE=%d\nMPI_MODE_NOPUT_VALUE=%d\n",
                (int)MPI_MODE_NOCHECK, (int)MPI_MODE_NOSTORE, (int)MPI_MODE_NOPUT);
        mpicheck_put_split_types(out);
        fclose(out);
        mpicheck_text(MPICHECK_TEXT_CONSTANTS, text);
        free(text);
    }
    free(handles);
}

void mpicheck_after_finalize(void)
{
    mpicheck_buffers_finalized();
    mpicheck_mpi_ready = 0;
    mpicheck_world_group = MPI_GROUP_NULL; /* freed by MPI_Finalize */
    mpicheck_finalized();
}

/* The function table as the trace holds it (format 4): each scalar field `s` and array `a`
 * followed by its (elements') width in this MPI, `s4`, `a8`, ..., and statuses as `st3`,
 * `sa3` (3 words per status).
 * NULL if the generated table and widths disagree. */
static const char *mpicheck_sized_schema(void)
{
    const char *in = mpicheck_schema_text;
    char *out = mpicheck_schema_sized;
    uint32_t scalar = 0;
    for (; *in; in++) {
        *out++ = *in;
        if (in > mpicheck_schema_text && in[-1] == ':' && (in[0] == 's' || in[0] == 'a')) {
            int end1 = in[1] == ' ' || in[1] == '\n';
            int end2 = (in[1] == 't' || in[1] == 'a') && (in[2] == ' ' || in[2] == '\n');
            if (end1) { /* a scalar or an array: its (elements') width */
                if (scalar == mpicheck_schema_scalars) return NULL;
                *out++ = (char)('0' + mpicheck_schema_widths[scalar++]);
            } else if (end2 && in[0] == 's') { /* a status or an array of statuses: 3 words each */
                *out++ = *++in;
                *out++ = '3';
            }
        }
    }
    *out = '\0';
    return scalar == mpicheck_schema_scalars ? mpicheck_schema_sized : NULL;
}

/* A forked child starts with an empty table of originals: its offsets are the parent's trace's
 * (the child records nothing into that trace, and a child that starts its own trace must not
 * refer to records that are not in it). */
static void mpicheck_repeat_table_clear(void)
{
    memset(mpicheck_repeat_table, 0, sizeof mpicheck_repeat_table);
}

__attribute__((constructor)) static void mpicheck_interpose_start(void)
{
    pthread_atfork(NULL, NULL, mpicheck_repeat_table_clear);
    const char *schema = mpicheck_sized_schema();
    if (!schema) {
        /* A trace whose table misstates its words would be misread: record nothing. */
        fprintf(stderr, "mpicheck: error: the recorder's function table does not match its argument widths; "
                        "nothing is recorded\n");
        return;
    }
    char *constants = mpicheck_constants_text();
    mpicheck_prepare(MPICHECK_FAMILY, schema, constants ? constants : "", mpicheck_threads_on_start);
    free(constants);
    mpicheck_threads_prepare();
    mpicheck_buffers_prepare();
}
