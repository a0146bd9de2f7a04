"""The buffer-checking hooks of the generated C wrappers (c/buffers.c, `mpicheck run
--check-buffers`): which calls start and complete the use of a buffer by MPI, and the C
code each wrapper runs around the MPI call. Imported by gen_wrappers.py."""

# Buffer checking (c/buffers.c, `mpicheck run --check-buffers`): the calls whose buffers stay
# in use after they return (send: MPI reads it, receive: MPI writes it), and the calls that
# may complete them, with their request array and its length.
BUFFER_POSTS = {
    "MPI_Isend": 0,
    "MPI_Ibsend": 0,
    "MPI_Issend": 0,
    "MPI_Irsend": 0,
    "MPI_Irecv": 1,
}
# (request array, its length, the requests it completed: "all" when the call succeeded and
# the expression is true, else (how many, the positions)); persistent requests keep their
# handle, so only this tells that they completed.
BUFFER_COMPLETERS = {
    "MPI_Wait": ("request", "1", ("1", None)),
    "MPI_Test": ("request", "1", ("flag && *flag", None)),
    "MPI_Request_free": ("request", "1", ("0", None)),
    "MPI_Waitall": ("array_of_requests", "count", ("1", None)),
    "MPI_Waitany": ("array_of_requests", "count", ("0", ("index && *index != MPI_UNDEFINED", "index"))),
    "MPI_Waitsome": ("array_of_requests", "incount", ("0", ("outcount && *outcount != MPI_UNDEFINED ? *outcount : 0", "array_of_indices"))),
    "MPI_Testall": ("array_of_requests", "count", ("flag && *flag", None)),
    "MPI_Testany": ("array_of_requests", "count", ("0", ("index && *index != MPI_UNDEFINED", "index"))),
    "MPI_Testsome": ("array_of_requests", "incount", ("0", ("outcount && *outcount != MPI_UNDEFINED ? *outcount : 0", "array_of_indices"))),
}
# Persistent point-to-point requests: their buffer is watched from each MPI_Start(all) to the
# call that completes it.
BUFFER_PERSISTENT = {
    "MPI_Send_init": 0,
    "MPI_Bsend_init": 0,
    "MPI_Ssend_init": 0,
    "MPI_Rsend_init": 0,
    "MPI_Recv_init": 1,
}

# Nonblocking collectives: the call of c/buffers_coll.c that watches their buffers ({big}: the
# _c variant's MPI_Count/MPI_Aint arrays), completed with the request and the call site.
BUFFER_COLLECTIVES = {
    "MPI_Ibcast": "mpicheck_buffers_ibcast(buffer, (int64_t)count, datatype, root, comm",
    "MPI_Ireduce": "mpicheck_buffers_ireduce(sendbuf, recvbuf, (int64_t)count, datatype, root, 0, comm",
    "MPI_Iallreduce": "mpicheck_buffers_ireduce(sendbuf, recvbuf, (int64_t)count, datatype, 0, 1, comm",
    "MPI_Iscan": "mpicheck_buffers_ireduce(sendbuf, recvbuf, (int64_t)count, datatype, 0, 1, comm",
    "MPI_Iexscan": "mpicheck_buffers_ireduce(sendbuf, recvbuf, (int64_t)count, datatype, 0, 2, comm",
    "MPI_Ireduce_scatter_block": "mpicheck_buffers_ireduce_scatter(sendbuf, recvbuf, (int64_t)recvcount, NULL, datatype, comm, {big}",
    "MPI_Ireduce_scatter": "mpicheck_buffers_ireduce_scatter(sendbuf, recvbuf, 0, recvcounts, datatype, comm, {big}",
    "MPI_Igather": "mpicheck_buffers_igather(sendbuf, (int64_t)sendcount, sendtype, recvbuf, (int64_t)recvcount, NULL, NULL, recvtype, root, 0, comm, {big}",
    "MPI_Igatherv": "mpicheck_buffers_igather(sendbuf, (int64_t)sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, 0, comm, {big}",
    "MPI_Iallgather": "mpicheck_buffers_igather(sendbuf, (int64_t)sendcount, sendtype, recvbuf, (int64_t)recvcount, NULL, NULL, recvtype, 0, 1, comm, {big}",
    "MPI_Iallgatherv": "mpicheck_buffers_igather(sendbuf, (int64_t)sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 0, 1, comm, {big}",
    "MPI_Iscatter": "mpicheck_buffers_iscatter(sendbuf, (int64_t)sendcount, NULL, NULL, sendtype, recvbuf, (int64_t)recvcount, recvtype, root, comm, {big}",
    "MPI_Iscatterv": "mpicheck_buffers_iscatter(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, (int64_t)recvcount, recvtype, root, comm, {big}",
    "MPI_Ialltoall": "mpicheck_buffers_ialltoall(sendbuf, (int64_t)sendcount, NULL, NULL, sendtype, NULL, recvbuf, (int64_t)recvcount, NULL, NULL, recvtype, NULL, comm, {big}",
    "MPI_Ialltoallv": "mpicheck_buffers_ialltoall(sendbuf, 0, sendcounts, sdispls, sendtype, NULL, recvbuf, 0, recvcounts, rdispls, recvtype, NULL, comm, {big}",
    "MPI_Ialltoallw": "mpicheck_buffers_ialltoall(sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, {big}",
    # Neighborhood collectives: the blocks of the topology's neighbours (c/buffers_coll.c);
    # {big} twice: MPI_Count counts, MPI_Aint displacements (always Aint for _alltoallw).
    "MPI_Ineighbor_allgather": "mpicheck_buffers_ineighbor(1, sendbuf, (int64_t)sendcount, NULL, NULL, sendtype, NULL, recvbuf, (int64_t)recvcount, NULL, NULL, recvtype, NULL, comm, {big}, {big}",
    "MPI_Ineighbor_allgatherv": "mpicheck_buffers_ineighbor(1, sendbuf, (int64_t)sendcount, NULL, NULL, sendtype, NULL, recvbuf, 0, recvcounts, displs, recvtype, NULL, comm, {big}, {big}",
    "MPI_Ineighbor_alltoall": "mpicheck_buffers_ineighbor(0, sendbuf, (int64_t)sendcount, NULL, NULL, sendtype, NULL, recvbuf, (int64_t)recvcount, NULL, NULL, recvtype, NULL, comm, {big}, {big}",
    "MPI_Ineighbor_alltoallv": "mpicheck_buffers_ineighbor(0, sendbuf, 0, sendcounts, sdispls, sendtype, NULL, recvbuf, 0, recvcounts, rdispls, recvtype, NULL, comm, {big}, {big}",
    "MPI_Ineighbor_alltoallw": "mpicheck_buffers_ineighbor(0, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, {big}, 1",
}

# RMA (c/buffers.c): origin buffers that MPI only reads are watched until the request or the
# calls that complete the operation at the origin; the buffers MPI writes (results) too, as
# receive buffers, where protection keys let other processes write them
# (MPICHECK_RECV_REMOTE; without keys they are only counted). Windows' local memory is never
# protected.
BUFFER_RMA_REQUEST = {"MPI_Rput", "MPI_Raccumulate", "MPI_Rget_accumulate"}
BUFFER_RMA_EPOCH = {"MPI_Put", "MPI_Accumulate", "MPI_Get_accumulate"}
BUFFER_RMA_WRITTEN = {
    "MPI_Get": "origin_addr",
    "MPI_Rget": "origin_addr",
    "MPI_Get_accumulate": "result_addr",
    "MPI_Rget_accumulate": "result_addr",
}
# Single-element atomics (count 1 of `datatype`): the buffers MPI reads (none of
# MPI_Fetch_and_op's origin with MPI_NO_OP), and the result it writes; until the epoch ends.
BUFFER_RMA_ATOMIC = {
    "MPI_Fetch_and_op": (["origin_addr"], "result_addr"),
    "MPI_Compare_and_swap": (["origin_addr", "compare_addr"], "result_addr"),
}
# Calls after which the operations to a target (or to all: None) are complete at the origin.
BUFFER_EPOCH_ENDS = {
    "MPI_Win_fence": None,
    "MPI_Win_complete": None,
    "MPI_Win_unlock": "rank",
    "MPI_Win_unlock_all": None,
    "MPI_Win_flush": "rank",
    "MPI_Win_flush_all": None,
    "MPI_Win_flush_local": "rank",
    "MPI_Win_flush_local_all": None,
}
# Calls that give a window local memory: (base expression, size).
BUFFER_WINDOWS = {
    "MPI_Win_create": ("base", "size"),
    "MPI_Win_allocate": ("baseptr ? *(void **)baseptr : NULL", "size"),
    "MPI_Win_allocate_shared": ("baseptr ? *(void **)baseptr : NULL", "size"),
}


def buffer_rma_hooks(func, base, site):
    on = "__builtin_expect(mpicheck_buffers_on, 0)"
    ok = f"{on} && mpicheck_ret == MPI_SUCCESS"
    out = []
    # MPI_NO_OP: the origin buffer of a get-accumulate is ignored, not read; MPI_PROC_NULL:
    # the call has no effect (checked again for the epoch kind in c/buffers.c).
    used = " && op != MPI_NO_OP" if base.endswith("et_accumulate") else ""
    if base in BUFFER_RMA_REQUEST:
        out += [
            f"if ({ok} && request && target_rank != MPI_PROC_NULL{used})",
            f"    mpicheck_buffers_post(origin_addr, (int64_t)origin_count, origin_datatype, *request, 0, {site});",
        ]
    if base in BUFFER_RMA_EPOCH:
        out += [
            f"if ({ok}{used})",
            f"    mpicheck_buffers_rma(origin_addr, (int64_t)origin_count, origin_datatype, target_rank, win, 0, {site});",
        ]
    if base in BUFFER_RMA_WRITTEN:
        addr = BUFFER_RMA_WRITTEN[base]
        count, datatype = addr.replace("_addr", "_count"), addr.replace("_addr", "_datatype")
        if base in BUFFER_RMA_REQUEST or base == "MPI_Rget":
            out += [
                f"if ({ok} && request && target_rank != MPI_PROC_NULL)",
                f"    mpicheck_buffers_post({addr}, (int64_t){count}, {datatype}, *request, MPICHECK_RECV_REMOTE, {site});",
            ]
        else:
            out += [
                f"if ({ok})",
                f"    mpicheck_buffers_rma({addr}, (int64_t){count}, {datatype}, target_rank, win, MPICHECK_RECV_REMOTE, {site});",
            ]
    if base in BUFFER_RMA_ATOMIC:
        read, written = BUFFER_RMA_ATOMIC[base]
        unless_no_op = " && op != MPI_NO_OP" if base == "MPI_Fetch_and_op" else ""
        for addr in read:
            out += [
                f"if ({ok}{unless_no_op})",
                f"    mpicheck_buffers_rma({addr}, 1, datatype, target_rank, win, 0, {site});",
            ]
        out += [
            f"if ({ok})",
            f"    mpicheck_buffers_rma({written}, 1, datatype, target_rank, win, MPICHECK_RECV_REMOTE, {site});",
        ]
    if base in BUFFER_EPOCH_ENDS:
        target = BUFFER_EPOCH_ENDS[base]
        out += [f"if ({on}) mpicheck_buffers_epoch_end(win, {target or '0'}, {0 if target else 1});"]
    if base in BUFFER_WINDOWS:
        addr, size = BUFFER_WINDOWS[base]
        out += [f"if ({ok} && win) mpicheck_buffers_window(*win, {addr}, (int64_t){size});"]
    if base == "MPI_Win_attach":
        out += [f"if ({ok}) mpicheck_buffers_window(win, base, (int64_t)size);"]
    if base == "MPI_Win_detach":
        out += [f"if ({on}) mpicheck_buffers_window_gone(win, base);"]
    if base == "MPI_Win_free":
        out += [
            f"if ({on}) {{",
            "    mpicheck_buffers_epoch_end(mpicheck_freed_win, 0, 1);",
            "    mpicheck_buffers_window_gone(mpicheck_freed_win, NULL);",
            "}",
        ]
    return out


def buffer_settle_hook(func):
    """Ending the watch of the requests a completion call completed."""
    reqs, n, (all_expr, some) = BUFFER_COMPLETERS[func.name]
    ndone, done = ("0", "NULL") if some is None else some
    return (
        f"if (mpicheck_bk) mpicheck_buffers_settle({reqs}, {n}, mpicheck_bk, mpicheck_ret == MPI_SUCCESS, "
        f"mpicheck_ret == MPI_SUCCESS && ({all_expr}), mpicheck_ret == MPI_SUCCESS ? ({ndone}) : 0, {done});"
    )


def buffer_pre_hooks(func):
    """Before the call: what a post hook needs that the call changes (MPI_Request_free nulls
    the handle of the persistent request whose buffer it forgets)."""
    if func.name == "MPI_Request_free":
        return ["MPI_Request mpicheck_freed = request ? *request : MPI_REQUEST_NULL;"]
    if func.name == "MPI_Win_free":
        return ["MPI_Win mpicheck_freed_win = win ? *win : MPI_WIN_NULL;"]
    return []


def persistent_collective(base):
    """The nonblocking collective whose buffers the persistent one (MPI 4: MPI_Bcast_init,
    MPI_Neighbor_alltoall_init ...) uses the same way: MPI_Ibcast, MPI_Ineighbor_alltoall."""
    return "MPI_I" + base[len("MPI_"):-len("_init")].lower() if base.endswith("_init") else None


def buffer_post_hooks(func, site):
    """After the call: watching the buffers of an operation that returned pending (immediate,
    persistent start, nonblocking collective, RMA), the completions that MPI_Request_get_status
    reports (the request stays allocated, the buffer is free) and RMA synchronization ends,
    windows' memory, persistent requests made and freed."""
    base = func.name[:-2] if func.embiggened else func.name
    rma = buffer_rma_hooks(func, base, site)
    if rma:
        return rma
    if base in BUFFER_POSTS:
        recv = BUFFER_POSTS[base]
        return [
            "if (__builtin_expect(mpicheck_buffers_on, 0) && mpicheck_ret == MPI_SUCCESS && request)",
            f"    mpicheck_buffers_post(buf, (int64_t)count, datatype, *request, {recv}, {site});",
        ]
    if base in BUFFER_COLLECTIVES:
        call = BUFFER_COLLECTIVES[base].format(big=1 if func.embiggened else 0)
        return [
            "if (__builtin_expect(mpicheck_buffers_on, 0) && mpicheck_ret == MPI_SUCCESS && request)",
            f"    {call}, *request, {site});",
        ]
    if base.endswith("_init") and BUFFER_COLLECTIVES.get(persistent_collective(base)):
        call = BUFFER_COLLECTIVES[persistent_collective(base)].format(big=1 if func.embiggened else 0)
        return [
            "if (__builtin_expect(mpicheck_buffers_on, 0) && mpicheck_ret == MPI_SUCCESS && request) {",
            "    mpicheck_buffers_capture(*request, 1);",
            f"    {call}, *request, {site});",
            "    mpicheck_buffers_capture(*request, 0);",
            "}",
        ]
    if base in BUFFER_PERSISTENT:
        recv = BUFFER_PERSISTENT[base]
        return [
            "if (__builtin_expect(mpicheck_buffers_on, 0) && mpicheck_ret == MPI_SUCCESS && request)",
            f"    mpicheck_buffers_persistent(buf, (int64_t)count, datatype, *request, {recv});",
        ]
    if func.name in ("MPI_Start", "MPI_Startall"):
        reqs, n = ("request", "1") if func.name == "MPI_Start" else ("array_of_requests", "count")
        return [
            "if (__builtin_expect(mpicheck_buffers_on, 0) && mpicheck_ret == MPI_SUCCESS)",
            f"    mpicheck_buffers_started({reqs}, {n}, {site});",
        ]
    if func.name == "MPI_Request_free":
        return [
            "if (__builtin_expect(mpicheck_buffers_on, 0) && mpicheck_ret == MPI_SUCCESS)",
            "    mpicheck_buffers_forget(mpicheck_freed);",
        ]
    if func.name == "MPI_Request_get_status":
        return [
            "if (__builtin_expect(mpicheck_buffers_on, 0) && mpicheck_ret == MPI_SUCCESS && flag && *flag)",
            "    mpicheck_buffers_completed(request);",
        ]
    return []


def fortran_buffer_hooks(func, bufmode, site):
    """The buffer-checking hooks of a Fortran entry point, (before the call, after it): the
    immediate sends and receives watch their buffer (plain buffers only: a descriptor's
    base need not be the data MPI uses), and the completion calls end the watches of what
    they completed, the Fortran handles converted to C."""
    on = "__builtin_expect(mpicheck_buffers_on, 0)"
    if func.name in BUFFER_POSTS and bufmode != "plain":
        return [], [f"if ({on} && mpicheck_ret == MPI_SUCCESS) mpicheck_buffers_unwatched();"]
    if func.name in BUFFER_POSTS and bufmode == "plain":
        recv = BUFFER_POSTS[func.name]
        return [], [
            f"if ({on} && mpicheck_ret == MPI_SUCCESS && f_request)",
            f"    mpicheck_buffers_post(buf, (int64_t)count, datatype, PMPI_Request_f2c(*f_request), {recv}, {site});",
        ]
    if func.name in BUFFER_COMPLETERS:
        reqs, n, (all_expr, _) = BUFFER_COMPLETERS[func.name]
        n = "1" if n == "1" else f"(int)*f_{n}"
        pre = [
            "MPI_Request mpicheck_fr_small[16], *mpicheck_fr = NULL;",
            f"uint64_t mpicheck_bk = {on} ? mpicheck_f_buffers_mark(f_{reqs}, {n}, mpicheck_fr_small, &mpicheck_fr) : 0;",
        ]
        post = [
            f"if (mpicheck_bk) mpicheck_f_buffers_settle(f_{reqs}, {n}, mpicheck_fr, mpicheck_fr_small, mpicheck_bk, mpicheck_ret == MPI_SUCCESS, {all_expr});",
        ]
        return pre, post
    if func.name == "MPI_Request_get_status":
        return [], [
            f"if ({on} && mpicheck_ret == MPI_SUCCESS && flag && *flag)",
            "    mpicheck_buffers_completed(PMPI_Request_f2c(*f_request));",
        ]
    return [], []
