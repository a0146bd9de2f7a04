/* Buffer checking of nonblocking collectives (`mpicheck run --check-buffers`; buffers.c does
 * the watching): which bytes of which buffer arguments MPI reads (send: stores forbidden) or
 * writes (receive: any access forbidden) until the request completes, per MPI 4.1 §6.12.
 *
 * - Receive buffers are protected read-only, not inaccessible: collective algorithms
 *   forward data from them (a peer reads them with process_vm_readv while this process is
 *   outside MPI, which fails with EFAULT on an inaccessible page: seen with MPICH's UCX
 *   transport and MPI_Iallgatherv). Stores into them are found, loads are not.
 * - Root-only arguments count only at the root; MPI_IN_PLACE buffers are both read and
 *   written, except the blocks that only hold this process's input (MPI_Igather(v) at the
 *   root, MPI_Iallgather(v), MPI_Ireduce_scatter(_block) beyond the result), which are
 *   watched as send buffers (loads allowed).
 * - A buffer is watched block by block (v-variants: from counts and displacements); blocks
 *   that touch or overlap are merged, so holes between them stay free for the program.
 * - Unknown layout (a non-contiguous datatype, MPI_BOTTOM, more than MAX_RANGES separate
 *   ranges), intercommunicators and anything unsure: not watched, counted. */
#define _GNU_SOURCE
#include "have.h"
#include "mpicheck_interpose.h"

#include <stdlib.h>

/* Separate ranges of one buffer argument watched at most: beyond, the buffer is unwatched
 * (the table of watched buffers is shared by every pending operation of the process). */
#define MAX_RANGES 16

struct range {
    uintptr_t lo, hi;
};

/* The blocks of one buffer argument: block i has counts[i] (or count) elements of types[i]
 * (or type) at displs[i] (in extents; bytes when types is set, as MPI_Ialltoallw) or, without
 * displs, at i * count elements. big: the _c variants' MPI_Count counts and MPI_Aint displs. */
struct blocks {
    const void *buf;
    int n;
    int64_t count;
    const void *counts;
    const void *displs;
    MPI_Datatype type;
    const MPI_Datatype *types;
    int big;
};

static int64_t nth_count(const void *a, int big, int i)
{
    return big ? (int64_t)((const MPI_Count *)a)[i] : (int64_t)((const int *)a)[i];
}

static int64_t nth_displ(const void *a, int big, int i)
{
    return big ? (int64_t)((const MPI_Aint *)a)[i] : (int64_t)((const int *)a)[i];
}

static int by_start(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts and merges the ranges in place: how many remain. */
static int merge(struct range *r, int n)
{
    if (n <= 1) return n;
    qsort(r, (size_t)n, sizeof *r, by_start);
    int out = 0;
    for (int i = 1; i < n; i++) {
        if (r[i].lo <= r[out].hi) {
            if (r[i].hi > r[out].hi) r[out].hi = r[i].hi;
        } else {
            r[++out] = r[i];
        }
    }
    return out + 1;
}

/* Watches the blocks of b: all as receive (recv) or send, except block `input` (-1: none),
 * which only holds this process's input and is watched as send. */
static void watch_blocks(const struct blocks *b, int recv, int input, MPI_Request req, const void *site)
{
    if (b->buf == NULL || b->n <= 0) return;
    struct range *r = malloc(sizeof *r * (size_t)b->n * 2);
    if (!r) {
        mpicheck_buffers_unwatched();
        return;
    }
    struct range *in = r + b->n;
    int nr = 0, ni = 0, known = b->buf != MPI_BOTTOM;
    for (int i = 0; i < b->n && known; i++) {
        int64_t count = b->counts ? nth_count(b->counts, b->big, i) : b->count;
        if (count <= 0) continue;
        int64_t size, true_lb;
        MPI_Datatype type = b->types ? b->types[i] : b->type;
        if (!mpicheck_buffers_contiguous(type, &size, &true_lb) || count > ((int64_t)1 << 40) / size) {
            known = 0;
            break;
        }
        int64_t displ = b->displs ? nth_displ(b->displs, b->big, i) : (int64_t)i * count;
        int64_t offset = b->types ? displ : displ * size; /* contiguous: extent == size */
        uintptr_t lo = (uintptr_t)b->buf + (uintptr_t)offset + (uintptr_t)true_lb;
        uintptr_t hi = lo + (uintptr_t)(count * size);
        if (hi <= lo) {
            known = 0;
            break;
        }
        if (i == input)
            in[ni++] = (struct range){lo, hi};
        else
            r[nr++] = (struct range){lo, hi};
    }
    nr = merge(r, nr);
    ni = merge(in, ni);
    if (!known || nr + ni > MAX_RANGES) {
        mpicheck_buffers_unwatched();
    } else {
        for (int i = 0; i < nr; i++)
            mpicheck_buffers_watch(r[i].lo, r[i].hi, MPICHECK_WATCH_REQUEST, req, MPI_WIN_NULL, 0,
                                   recv ? MPICHECK_RECV_READABLE : 0, site);
        for (int i = 0; i < ni; i++)
            mpicheck_buffers_watch(in[i].lo, in[i].hi, MPICHECK_WATCH_REQUEST, req, MPI_WIN_NULL, 0, 0, site);
    }
    free(r);
}

static void watch_one(const void *buf, int64_t count, MPI_Datatype type, int recv, MPI_Request req, const void *site)
{
    struct blocks b = {buf, 1, count, NULL, NULL, type, NULL, 0};
    watch_blocks(&b, recv, -1, req, site);
}

/* This process's rank and the group size of an intracommunicator; 0 for an intercommunicator
 * (roots and counts refer to the other group: not watched) or an error. */
static int shape(MPI_Comm comm, int *rank, int *size)
{
    int inter = 1;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter || PMPI_Comm_rank(comm, rank) != MPI_SUCCESS ||
        PMPI_Comm_size(comm, size) != MPI_SUCCESS) {
        mpicheck_buffers_unwatched();
        return 0;
    }
    return 1;
}

void mpicheck_buffers_ibcast(void *buf, int64_t count, MPI_Datatype type, int root, MPI_Comm comm,
                             MPI_Request req, const void *site)
{
    int rank, size;
    if (req == MPI_REQUEST_NULL || !shape(comm, &rank, &size)) return;
    watch_one(buf, count, type, rank != root, req, site);
}

/* MPI_Ireduce (kind 0), MPI_Iallreduce and MPI_Iscan (1), MPI_Iexscan (2). */
void mpicheck_buffers_ireduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int root,
                              int kind, MPI_Comm comm, MPI_Request req, const void *site)
{
    int rank, size;
    if (req == MPI_REQUEST_NULL || !shape(comm, &rank, &size)) return;
    int in_place = sendbuf == MPI_IN_PLACE;
    int gets_result = kind == 1 || (kind == 0 && rank == root) || (kind == 2 && rank != 0);
    if (!in_place) watch_one(sendbuf, count, type, 0, req, site);
    /* Rank 0 of an exscan gets no result (its recvbuf is undefined, not written): with
     * MPI_IN_PLACE its recvbuf is input only. */
    if (in_place && kind == 2 && rank == 0) watch_one(recvbuf, count, type, 0, req, site);
    else if (gets_result) watch_one(recvbuf, count, type, 1, req, site);
}

/* MPI_Ireduce_scatter (recvcounts) and MPI_Ireduce_scatter_block (recvcount). */
void mpicheck_buffers_ireduce_scatter(const void *sendbuf, void *recvbuf, int64_t recvcount, const void *recvcounts,
                                      MPI_Datatype type, MPI_Comm comm, int big, MPI_Request req, const void *site)
{
    int rank, size;
    if (req == MPI_REQUEST_NULL || !shape(comm, &rank, &size)) return;
    int64_t total = 0, mine = recvcounts ? nth_count(recvcounts, big, rank) : recvcount;
    for (int i = 0; i < size; i++) total += recvcounts ? nth_count(recvcounts, big, i) : recvcount;
    if (sendbuf != MPI_IN_PLACE) {
        watch_one(sendbuf, total, type, 0, req, site);
        watch_one(recvbuf, mine, type, 1, req, site);
        return;
    }
    /* In place: the result lands in the first `mine` elements, the rest is input. */
    MPI_Count counts[2] = {mine, total - mine};
    MPI_Aint displs[2] = {0, (MPI_Aint)mine};
    struct blocks b = {recvbuf, 2, 0, counts, displs, type, NULL, 1};
    watch_blocks(&b, 1, 1, req, site);
}

/* MPI_Igather(v) (all = 0) and MPI_Iallgather(v) (all = 1, root unused). */
void mpicheck_buffers_igather(const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int64_t recvcount, const void *recvcounts, const void *displs, MPI_Datatype recvtype,
                              int root, int all, MPI_Comm comm, int big, MPI_Request req, const void *site)
{
    int rank, size;
    if (req == MPI_REQUEST_NULL || !shape(comm, &rank, &size)) return;
    int in_place = sendbuf == MPI_IN_PLACE;
    int receives = all || rank == root;
    if (!in_place) watch_one(sendbuf, sendcount, sendtype, 0, req, site);
    if (!receives) return;
    struct blocks b = {recvbuf, size, recvcount, recvcounts, displs, recvtype, NULL, big};
    /* In place, this process's own block is its input. */
    watch_blocks(&b, 1, in_place ? rank : -1, req, site);
}

/* MPI_Iscatter(v). */
void mpicheck_buffers_iscatter(const void *sendbuf, int64_t sendcount, const void *sendcounts, const void *displs,
                               MPI_Datatype sendtype, void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                               int root, MPI_Comm comm, int big, MPI_Request req, const void *site)
{
    int rank, size;
    if (req == MPI_REQUEST_NULL || !shape(comm, &rank, &size)) return;
    if (rank == root) {
        struct blocks b = {sendbuf, size, sendcount, sendcounts, displs, sendtype, NULL, big};
        watch_blocks(&b, 0, -1, req, site);
    }
    if (recvbuf != MPI_IN_PLACE) watch_one(recvbuf, recvcount, recvtype, 1, req, site);
}

/* MPI_Ialltoall(v/w): v with counts and displs, w with per-peer types and byte displs. */
void mpicheck_buffers_ialltoall(const void *sendbuf, int64_t sendcount, const void *sendcounts, const void *sdispls,
                                MPI_Datatype sendtype, const MPI_Datatype *sendtypes, void *recvbuf,
                                int64_t recvcount, const void *recvcounts, const void *rdispls,
                                MPI_Datatype recvtype, const MPI_Datatype *recvtypes, MPI_Comm comm, int big,
                                MPI_Request req, const void *site)
{
    int rank, size;
    if (req == MPI_REQUEST_NULL || !shape(comm, &rank, &size)) return;
    if (sendbuf != MPI_IN_PLACE) {
        struct blocks s = {sendbuf, size, sendcount, sendcounts, sdispls, sendtype, sendtypes, big};
        watch_blocks(&s, 0, -1, req, site);
    }
    /* In place, every block is read and then overwritten: all receive. */
    struct blocks r = {recvbuf, size, recvcount, recvcounts, rdispls, recvtype, recvtypes, big};
    watch_blocks(&r, 1, -1, req, site);
}

/* The neighbours of a process in a topology, in the order of the blocks of the neighborhood
 * collectives (MPI 4.1 §8.6): sources (receive blocks) and destinations (send blocks);
 * a Cartesian topology's missing neighbours are MPI_PROC_NULL. 0 without a topology. */
static int neighbours(MPI_Comm comm, int *in, int *out, int **sources, int **destinations)
{
    int topo, rank;
    *sources = *destinations = NULL;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return 0;
    if (topo == MPI_CART) {
        int dims;
        if (PMPI_Cartdim_get(comm, &dims) != MPI_SUCCESS || dims < 0) return 0;
        *in = *out = 2 * dims;
    } else if (topo == MPI_GRAPH) {
        if (PMPI_Graph_neighbors_count(comm, rank, in) != MPI_SUCCESS || *in < 0) return 0;
        *out = *in;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted;
        if (PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted) != MPI_SUCCESS || *in < 0 || *out < 0)
            return 0;
    } else {
        return 0;
    }
    /* Two spare entries each: never a zero-sized allocation, room for weights below. */
    *sources = malloc(sizeof(int) * (size_t)(2 * *in + 2));
    *destinations = malloc(sizeof(int) * (size_t)(2 * *out + 2));
    if (!*sources || !*destinations) return 0;
    int ok = 1;
    if (topo == MPI_CART) {
        for (int d = 0; d < *in / 2 && ok; d++)
            ok = PMPI_Cart_shift(comm, d, 1, &(*sources)[2 * d], &(*sources)[2 * d + 1]) == MPI_SUCCESS;
        for (int i = 0; i < *in; i++) (*destinations)[i] = (*sources)[i];
    } else if (topo == MPI_GRAPH) {
        ok = PMPI_Graph_neighbors(comm, rank, *in, *sources) == MPI_SUCCESS;
        for (int i = 0; i < *in; i++) (*destinations)[i] = (*sources)[i];
    } else {
        ok = PMPI_Dist_graph_neighbors(comm, *in, *sources, *sources + *in + 1, *out, *destinations,
                                       *destinations + *out + 1) == MPI_SUCCESS;
    }
    return ok;
}

/* The n blocks of a neighborhood collective's buffer, those of MPI_PROC_NULL neighbours
 * left out (MPI does not touch them). bigc, bigd: MPI_Count counts, MPI_Aint displs. */
static void watch_neighbour_blocks(const void *buf, int n, const int *peers, int64_t count, const void *counts,
                                   const void *displs, int bigc, int bigd, MPI_Datatype type,
                                   const MPI_Datatype *types, int recv, MPI_Request req, const void *site)
{
    if (buf == NULL || n <= 0) return;
    MPI_Count *c = malloc(sizeof *c * (size_t)n);
    MPI_Aint *d = malloc(sizeof *d * (size_t)n);
    if (c && d) {
        for (int i = 0; i < n; i++) {
            c[i] = peers[i] == MPI_PROC_NULL ? 0 : counts ? nth_count(counts, bigc, i) : count;
            d[i] = displs ? nth_displ(displs, bigd, i) : (MPI_Aint)i * count;
        }
        struct blocks b = {buf, n, 0, c, d, type, types, 1};
        watch_blocks(&b, recv, -1, req, site);
    } else {
        mpicheck_buffers_unwatched();
    }
    free(c);
    free(d);
}

/* MPI_Ineighbor_allgather(v) (gather = 1: one send block for every destination) and
 * MPI_Ineighbor_alltoall(v/w). */
void mpicheck_buffers_ineighbor(int gather, const void *sendbuf, int64_t sendcount, const void *sendcounts,
                                const void *sdispls, MPI_Datatype sendtype, const MPI_Datatype *sendtypes,
                                void *recvbuf, int64_t recvcount, const void *recvcounts, const void *rdispls,
                                MPI_Datatype recvtype, const MPI_Datatype *recvtypes, MPI_Comm comm, int bigc,
                                int bigd, MPI_Request req, const void *site)
{
    int in = 0, out = 0, *sources, *destinations;
    if (req == MPI_REQUEST_NULL) return;
    if (!neighbours(comm, &in, &out, &sources, &destinations)) {
        mpicheck_buffers_unwatched();
    } else if (gather) {
        /* The one send block, read when some destination is a process. */
        int to = MPI_PROC_NULL;
        for (int i = 0; i < out; i++)
            if (destinations[i] != MPI_PROC_NULL) to = destinations[i];
        watch_neighbour_blocks(sendbuf, 1, &to, sendcount, NULL, NULL, 0, 0, sendtype, NULL, 0, req, site);
        watch_neighbour_blocks(recvbuf, in, sources, recvcount, recvcounts, rdispls, bigc, bigd, recvtype, NULL, 1,
                               req, site);
    } else {
        watch_neighbour_blocks(sendbuf, out, destinations, sendcount, sendcounts, sdispls, bigc, bigd, sendtype,
                               sendtypes, 0, req, site);
        watch_neighbour_blocks(recvbuf, in, sources, recvcount, recvcounts, rdispls, bigc, bigd, recvtype, recvtypes,
                               1, req, site);
    }
    free(sources);
    free(destinations);
}
