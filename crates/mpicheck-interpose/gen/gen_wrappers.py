#!/usr/bin/env python3
"""Generates mpicheck's MPI interposition wrappers from the MPI Forum's API description.

Usage: gen_wrappers.py [OUT_DIR]   (default: ../c/generated next to this script)

Writes `wrappers.c` (one recording wrapper `MPI_Xxx` per C function of the standard, including
the `_c` large-count variants, plus the function table as a string) and `fortran.c` (recording
wrappers for the Fortran entry points of every procedure with a Fortran binding: mpif.h and
`use mpi` `mpi_xxx_`, `use mpi_f08` `mpi_xxx_f08_`, MPICH's `_f08ts_` and large-count variants,
Open MPI's `_cptr_` overloads; see FLAVOURS and FORTRAN_EXCLUDED). Both are committed; a test
regenerates them and diffs, so edit this script, never the output.

The API description is `apis.json` as bundled in the MPI Forum's `pympistandard` package (MIT),
pinned in requirements.txt next to this script and installed by scripts/install-deps into
$MPICHECK_PYTHON_DIR (default /opt/mpicheck-python), which is searched first. Without that
version of the package the script exits with status 3 (EXIT_MISSING_PACKAGE) and says so.

The word layout of every recorded call is the one documented in crate mpicheck-trace
(src/schema.rs): one word per scalar, of the size of its C type (4 or 8 bytes, trace format
4), `[n, v...]` per array (an 8-byte count, then elements of the size of their C type) and 3
8-byte words per status (source and tag, error, bytes), both starting at a multiple of 8. The
function table says `s` for every scalar, `a` for arrays and `st`/`sa` for statuses; the
library appends each scalar's and array element's width at start (`mpicheck_schema_widths`,
sizeof of the C type in this MPI: MPICH's handles are ints, Open MPI's pointers) and `3` to
each status shape (support.c).
"""

import os
import re
import sys

from buffer_hooks import (
    BUFFER_COMPLETERS,
    buffer_post_hooks,
    buffer_pre_hooks,
    buffer_settle_hook,
    fortran_buffer_hooks,
)

HERE = os.path.dirname(os.path.abspath(__file__))
EXIT_MISSING_PACKAGE = 3


def _pinned_version():
    with open(os.path.join(HERE, "requirements.txt")) as fh:
        found = re.search(r"^pympistandard==(\S+)", fh.read(), re.MULTILINE)
    assert found, "requirements.txt pins no pympistandard version"
    return found.group(1)


def _import_pympistandard():
    """The pinned pympistandard, or exit: the output must not depend on the machine."""
    want = _pinned_version()
    # install-deps's directory wins over any other installed copy.
    sys.path.insert(0, os.environ.get("MPICHECK_PYTHON_DIR", "/opt/mpicheck-python"))
    try:
        import pympistandard
    except ImportError:
        found = ""
    else:
        if pympistandard.__version__ == want:
            return pympistandard
        found = f" (found {pympistandard.__version__})"
    print(
        f"gen_wrappers.py: error: pympistandard {want} is not installed{found}; "
        "install it with scripts/install-deps",
        file=sys.stderr,
    )
    sys.exit(EXIT_MISSING_PACKAGE)


std = _import_pympistandard()
# The description the pinned package ships, never one named by $MPISTANDARD.
std.use_api_version(1, force_bundled=True)

# ---------------------------------------------------------------------------------------------
# How each parameter is recorded
# ---------------------------------------------------------------------------------------------

# Kinds whose C parameter is recorded as its address, never dereferenced: buffers, strings,
# callbacks, opaque user state, Fortran statuses.
ADDRESS_KINDS = {
    "STRING",
    "STRING_ARRAY",
    "STRING_2DARRAY",
    "ARGUMENT_LIST",
    "F08_STATUS",
    "F90_STATUS",
    "TOOL_MPI_OBJ",
    "FUNCTION",
    "FUNCTION_SMALL",
    "POLYFUNCTION",
    "EVENT_CB_FUNCTION",
    "EVENT_DROP_CB_FUNCTION",
    "EVENT_FREE_CB_FUNCTION",
}

# Lengths of arrays the description gives as "*" (or not at all), by (function, parameter):
# a C expression evaluated at entry, or None when the length cannot be computed.
GROUP = "mpicheck_coll_size(comm)"  # remote group for intercommunicators
LOCAL = "mpicheck_local_size(comm)"
IN_DEG = "mpicheck_in_degree(comm)"
OUT_DEG = "mpicheck_out_degree(comm)"


def _overrides():
    table = {}
    for base in ["allgatherv", "gatherv"]:
        for f in [base, "i" + base, base + "_init"]:
            table[(f, "recvcounts")] = GROUP
            table[(f, "displs")] = GROUP
    for f in ["scatterv", "iscatterv", "scatterv_init"]:
        table[(f, "sendcounts")] = GROUP
        table[(f, "displs")] = GROUP
    for base in ["alltoallv", "alltoallw"]:
        for f in [base, "i" + base, base + "_init"]:
            for p in ["sendcounts", "sdispls", "sendtypes"]:
                table[(f, p)] = GROUP
            for p in ["recvcounts", "rdispls", "recvtypes"]:
                table[(f, p)] = GROUP
    for f in ["reduce_scatter", "ireduce_scatter", "reduce_scatter_init"]:
        table[(f, "recvcounts")] = LOCAL
    for base in ["neighbor_allgatherv", "neighbor_alltoallv", "neighbor_alltoallw"]:
        for f in [base, "i" + base, base + "_init"]:
            for p in ["sendcounts", "sdispls", "sendtypes"]:
                table[(f, p)] = OUT_DEG
            for p in ["recvcounts", "displs", "rdispls", "recvtypes"]:
                table[(f, p)] = IN_DEG
    table[("cart_rank", "coords")] = "mpicheck_cartdim(comm)"
    table[("cart_sub", "remain_dims")] = "mpicheck_cartdim(comm)"
    table[("dist_graph_create", "destinations")] = "mpicheck_sum(degrees, n)"
    table[("dist_graph_create", "weights")] = "mpicheck_weights_len(weights, mpicheck_sum(degrees, n))"
    table[("dist_graph_create_adjacent", "sourceweights")] = "mpicheck_weights_len(sourceweights, indegree)"
    table[("dist_graph_create_adjacent", "destweights")] = "mpicheck_weights_len(destweights, outdegree)"
    table[("dist_graph_neighbors", "sourceweights")] = "mpicheck_weights_len(sourceweights, maxindegree)"
    table[("dist_graph_neighbors", "destweights")] = "mpicheck_weights_len(destweights, maxoutdegree)"
    table[("graph_create", "edges")] = "mpicheck_last_entry(index, nnodes)"
    table[("graph_map", "edges")] = "mpicheck_last_entry(index, nnodes)"
    for f in ["waitall", "testall", "request_get_status_all"]:
        table[(f, "array_of_statuses")] = "count"
    # Data-dependent lengths: recorded at their length known on entry (incount); entries past
    # the returned outcount are written as -1 (see VALID below).
    for f in ["waitsome", "testsome", "request_get_status_some"]:
        table[(f, "array_of_indices")] = "incount"
        table[(f, "array_of_statuses")] = "incount"
    table[("comm_spawn", "array_of_errcodes")] = "(array_of_errcodes == MPI_ERRCODES_IGNORE ? -1 : mpicheck_root_len(comm, root, maxprocs))"
    table[("comm_spawn_multiple", "array_of_errcodes")] = None
    return table


LENGTH_OVERRIDES = _overrides()

# Out arrays of which only a prefix is meaningful after return: (function, param) -> C
# expression for the number of valid entries.
VALID = {}
for _f in ["waitsome", "testsome", "request_get_status_some"]:
    VALID[(_f, "array_of_indices")] = "(*outcount == MPI_UNDEFINED ? 0 : (int64_t)*outcount)"
    VALID[(_f, "array_of_statuses")] = "(*outcount == MPI_UNDEFINED ? 0 : (int64_t)*outcount)"

# Keyval constructors: the program's copy and delete functions are given to MPI behind
# trampolines (c/callbacks.c), so the MPI calls they make are recorded. name -> (kind, copy
# parameter, delete parameter).
KEYVAL_CREATORS = {
    "MPI_Comm_create_keyval": ("comm", "comm_copy_attr_fn", "comm_delete_attr_fn"),
    "MPI_Type_create_keyval": ("type", "type_copy_attr_fn", "type_delete_attr_fn"),
    "MPI_Win_create_keyval": ("win", "win_copy_attr_fn", "win_delete_attr_fn"),
    "MPI_Keyval_create": ("comm", "copy_fn", "delete_fn"),
}

# Nonblocking communicator constructors: the new communicator is not usable before the request
# completes, so no MPICHECK_Comm_info is recorded for them.
NONBLOCKING_COMM_CREATORS = {"MPI_Comm_idup", "MPI_Comm_idup_with_info"}


class Param:
    """One C parameter, with how it is recorded."""

    def __init__(self, func, iso, raw):
        self.func = func
        self.name = raw["name"]
        self.kind = raw["kind"]
        self.dir = raw["param_direction"]
        self.root_only = raw["root_only"]
        self.decl = str(iso).replace("\\ldots", "...")
        self.base_type = iso.base_type
        self.pointer_level = iso.pointer_level
        self.array = iso.array
        self.has_func_type = bool(raw.get("func_type"))
        length = raw["length"]
        short = func.lower()[4:]
        if short.endswith("_c") and short[:-2] in _PROC_NAMES:
            short = short[:-2]
        key = (short, self.name)
        self.length = None  # C expression for the element count, or None (not recorded)
        self.valid = VALID.get(key)
        if self.kind == "VARARGS":
            self.mode = "varargs"
        elif self.kind in ADDRESS_KINDS or self.has_func_type or self.base_type in ("void", "char"):
            self.mode = "addr"
        elif self.kind == "STATUS":
            if self.array or length is not None:
                self.mode = "statuses"
                self.length = LENGTH_OVERRIDES.get(key, length if length not in (None, "*", "") else None)
            else:
                self.mode = "status"
        elif self.array:
            self.mode = "array"
            if key in LENGTH_OVERRIDES:
                self.length = LENGTH_OVERRIDES[key]
            elif isinstance(length, list):
                self.length = f"(int64_t){length[0]} * {length[1]}"
            elif length in (None, "*", ""):
                self.length = None
            else:
                self.length = length
        elif self.pointer_level >= 1:
            self.mode = "deref"
        else:
            self.mode = "value"

    @property
    def shape(self):
        return {"array": "a", "status": "st", "statuses": "sa"}.get(self.mode, "s")

    def width(self):
        """C expression for the bytes of one scalar word of this parameter (format 4)."""
        if self.mode == "addr":
            return "8u"
        return f"MPICHECK_WIDTH({self.base_type})"

    def schema(self):
        return f"{self.name}:{self.kind}:{self.dir}:{self.shape}"


class Func:
    def __init__(self, name, iso, raw_params, embiggened):
        self.name = name
        self.iso = iso
        self.embiggened = embiggened
        self.return_type = iso.return_type
        params = [p for p in raw_params if "c_parameter" not in p["suppress"] and (embiggened or not p["large_only"])]
        isos = list(iso.parameters)
        assert len(params) == len(isos), name
        self.params = [Param(name, i, r) for i, r in zip(isos, params)]
        self.id = None

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        return None

    def schema(self):
        return " ".join([str(self.id), self.name] + [p.schema() for p in self.params if p.mode != "varargs"])


_PROC_NAMES = set()


def load_functions():
    funcs = []
    for key in sorted(std.PROCEDURES):
        _PROC_NAMES.add(key[4:])
    for key in sorted(std.PROCEDURES):
        proc = std.PROCEDURES[key]
        iso = proc.express.iso_c
        if iso is None:
            continue
        raw = proc._parseset["parameters"]
        funcs.append(Func(iso.name, iso, raw, False))
        funcs[-1].proc = proc
        if proc.has_embiggenment():
            big = proc.express.embiggen.iso_c
            funcs.append(Func(big.name, big, raw, True))
            funcs[-1].proc = proc
    for i, f in enumerate(funcs):
        f.id = i
    return funcs


PSEUDO = [
    "MPICHECK_Comm_info comm:COMMUNICATOR:in:s members:WORLD_RANKS:in:a remote:WORLD_RANKS:in:a",
    "MPICHECK_Type_info datatype:DATATYPE:in:s size:INT:in:s extent:INT:in:s true_lb:INT:in:s true_extent:INT:in:s",
    # Synchronization between threads (c/threads.c): what = release/acquire/region begin/end.
    "MPICHECK_Sync what:INT:in:s object:INT:in:s",
    # A load or store of the program into the buffer of a pending operation (c/buffers.c,
    # written after the fault; the record's call site is the faulting instruction + 1).
    "MPICHECK_Access write:INT:in:s address:INT:in:s thread:INT:in:s tid:INT:in:s start:INT:in:s len:INT:in:s recv:INT:in:s post_site:INT:in:s",
    # Buffer checking's counts at MPI_Finalize: buffers watched, not watched (layout, memory,
    # table full), findings dropped (table full).
    "MPICHECK_Buffers watched:INT:in:s unwatched:INT:in:s dropped:INT:in:s",
]

PSEUDO_NAMES = [p.split()[0] for p in PSEUDO]

# ---------------------------------------------------------------------------------------------
# Emitting the recording code
# ---------------------------------------------------------------------------------------------


class CAccess:
    """How the C wrapper reads a parameter's C value (the Fortran wrapper has its own)."""

    def value(self, p):
        return p.name

    def deref(self, p):
        return f"({p.name} ? MPICHECK_W(*{p.name}) : 0)"

    def elem(self, p, i):
        return f"{self.elem_ptr(p)}[{i}]"

    def elem_ptr(self, p):
        """The pointer whose entries the record copies."""
        if p.array.startswith("[]["):
            return f"((const int *){p.name})"
        return p.name

    def status_ptr(self, p):
        return f"mpicheck_st_{p.name}"

    def addr(self, p):
        return p.name


def out_valid_cond(func):
    """Statuses of a test-like call are meaningful only when its flag came back true."""
    flag = func.param("flag")
    if flag is not None and flag.dir == "out" and flag.mode == "deref":
        return "*flag"
    return None


def emit_record(func, acc, lines, indent):
    """The code computing array lengths before the record is reserved, and the C expression
    for the bytes of the record's argument words: scalars of their width, arrays and statuses
    of 8-byte words from a multiple of 8 (trace format 4)."""
    pre = []
    nbytes = "0"
    sendbuf = func.param("sendbuf")
    for prm in func.params:
        if prm.mode == "varargs":
            continue
        reps = 2 if prm.dir == "inout" else 1
        if prm.mode in ("value", "deref", "addr"):
            nbytes = " + ".join([nbytes] + [prm.width()] * reps)
        elif prm.mode == "status":
            nbytes = f"MPICHECK_ALIGN8({nbytes}) + {reps} * 8 * MPICHECK_STATUS_WORDS"
        elif prm.mode in ("array", "statuses"):
            n = f"mpicheck_n_{prm.name}"
            expr = prm.length if prm.length is not None else "-1"
            conds = [f"{acc.addr(prm)} == NULL"]
            if prm.mode == "statuses":
                conds = []  # STATUSES_IGNORE is replaced by a local array below
            if prm.root_only and func.param("root") is not None and func.param("comm") is not None:
                conds.append("!mpicheck_is_root(comm, root)")
            if sendbuf is not None and prm.name in ("sendcounts", "sdispls", "sendtypes"):
                conds.append("sendbuf == MPI_IN_PLACE")
            # Arrays read from the user's memory are checked readable; statuses are
            # substituted or written by MPI, and only capped.
            if prm.mode == "array":
                ptr = acc.elem_ptr(prm)
                length = f"mpicheck_array_len({ptr}, (int64_t)({expr}), sizeof(({ptr})[0]))"
            else:
                length = f"mpicheck_len_cap((int64_t)({expr}))"
            if prm.length is None:
                pre.append(f"int64_t {n} = -1;")
            elif conds:
                pre.append(f"int64_t {n} = ({' || '.join(conds)}) ? -1 : {length};")
            else:
                pre.append(f"int64_t {n} = {length};")
            for _ in range(reps):
                if prm.mode == "statuses":
                    nbytes = f"MPICHECK_ALIGN8({nbytes}) + 8 * (1 + MPICHECK_STATUS_WORDS * MPICHECK_POS({n}))"
                else:
                    nbytes = f"MPICHECK_ALIGN8({nbytes}) + 8 + {prm.width()} * MPICHECK_POS({n})"
    return pre, nbytes


def gen_input(func, acc, prm, out):
    """Code writing one parameter's entry words at p (a byte cursor, advanced); arrays and
    statuses through q, the 8-byte words from p's next multiple of 8."""
    if prm.mode == "value":
        out.append(f"MPICHECK_PUT(mpicheck_p, {prm.width()}, MPICHECK_W({acc.value(prm)}));")
    elif prm.mode == "addr":
        out.append(f"MPICHECK_PUT(mpicheck_p, {prm.width()}, MPICHECK_W({acc.addr(prm)}));")
    elif prm.mode == "deref":
        out.append(f"MPICHECK_PUT(mpicheck_p, {prm.width()}, {acc.deref(prm)});")
    elif prm.mode == "status":
        out.append("mpicheck_q = MPICHECK_ALIGN8_PTR(mpicheck_p);")
        out.append(f"mpicheck_put_status(mpicheck_q, {acc.status_ptr(prm)}); mpicheck_p = (unsigned char *)(mpicheck_q + MPICHECK_STATUS_WORDS);")
    elif prm.mode == "array":
        n = f"mpicheck_n_{prm.name}"
        out.append("mpicheck_q = MPICHECK_ALIGN8_PTR(mpicheck_p);")
        out.append(f"*mpicheck_q++ = {n};")
        out.append("mpicheck_p = (unsigned char *)mpicheck_q;")
        out.append(f"for (int64_t mpicheck_i = 0; mpicheck_i < {n}; mpicheck_i++) MPICHECK_PUT(mpicheck_p, {prm.width()}, MPICHECK_W({acc.elem(prm, 'mpicheck_i')}));")
    elif prm.mode == "statuses":
        n = f"mpicheck_n_{prm.name}"
        out.append("mpicheck_q = MPICHECK_ALIGN8_PTR(mpicheck_p);")
        out.append(f"*mpicheck_q++ = {n};")
        out.append(f"for (int64_t mpicheck_i = 0; mpicheck_i < {n}; mpicheck_i++, mpicheck_q += MPICHECK_STATUS_WORDS) mpicheck_put_status(mpicheck_q, &{acc.status_ptr(prm)}[mpicheck_i]);")
        out.append("mpicheck_p = (unsigned char *)mpicheck_q;")


def reserve_output(prm, out):
    """Code keeping an output's place at p (its words are written after the call)."""
    o = f"mpicheck_o_{prm.name}"
    if prm.mode in ("value", "deref"):
        out.append(f"{o} = mpicheck_p;")
        out.append(f"mpicheck_p += {prm.width()};")
    elif prm.mode == "array":
        out.append(f"{o} = (unsigned char *)MPICHECK_ALIGN8_PTR(mpicheck_p);")
        out.append(f"mpicheck_p = {o} + 8 + {prm.width()} * MPICHECK_POS(mpicheck_n_{prm.name});")
    else:
        out.append(f"{o} = MPICHECK_ALIGN8_PTR(mpicheck_p);")
        out.append(f"mpicheck_p = (unsigned char *)({o} + {words_expr(prm)});")


def output_decl(prm):
    """The declaration of an output's place: bytes for a scalar or an array, 8-byte words for
    statuses."""
    kind = "unsigned char" if prm.mode in ("value", "deref", "array") else "int64_t"
    return f"{kind} *mpicheck_o_{prm.name} = NULL;"


def gen_output(func, acc, prm, out):
    """Code writing one parameter's return words at its saved position o."""
    o = f"mpicheck_o_{prm.name}"
    valid_flag = out_valid_cond(func)
    if prm.mode == "value":
        out.append(f"MPICHECK_SET({o}, {prm.width()}, MPICHECK_W({acc.value(prm)}));")
    elif prm.mode == "addr":
        pass  # an address is known on entry and written there
    elif prm.mode == "deref":
        out.append(f"MPICHECK_SET({o}, {prm.width()}, {acc.deref(prm)});")
    elif prm.mode == "status":
        if valid_flag:
            out.append(f"if ({valid_flag}) mpicheck_put_status({o}, {acc.status_ptr(prm)}); else mpicheck_put_status_none({o});")
        else:
            out.append(f"mpicheck_put_status({o}, {acc.status_ptr(prm)});")
    elif prm.mode == "array":
        n = f"mpicheck_n_{prm.name}"
        w = prm.width()
        out.append(f"MPICHECK_SET({o}, 8, {n});")
        valid = prm.valid or n
        out.append(
            f"for (int64_t mpicheck_i = 0, mpicheck_v = {valid}; mpicheck_i < {n}; mpicheck_i++) MPICHECK_SET({o} + 8 + {w} * mpicheck_i, {w}, mpicheck_i < mpicheck_v ? MPICHECK_W({acc.elem(prm, 'mpicheck_i')}) : -1);"
        )
    elif prm.mode == "statuses":
        n = f"mpicheck_n_{prm.name}"
        out.append(f"{o}[0] = {n};")
        valid = prm.valid or n
        if valid_flag:
            valid = f"({valid_flag} ? {valid} : 0)"
        out.append(f"for (int64_t mpicheck_i = 0, mpicheck_v = {valid}; mpicheck_i < {n}; mpicheck_i++) {{")
        out.append(f"    if (mpicheck_i < mpicheck_v) mpicheck_put_status({o} + 1 + MPICHECK_STATUS_WORDS * mpicheck_i, &{acc.status_ptr(prm)}[mpicheck_i]);")
        out.append(f"    else mpicheck_put_status_none({o} + 1 + MPICHECK_STATUS_WORDS * mpicheck_i);")
        out.append("}")


# Calls a thread may repeat in a tight loop: polls, and queries such as MPI_Wtime. Their
# records get two more words and the POLL flag, and one identical to the thread's previous
# record is folded into it when this condition holds after the call (an unsuccessful poll;
# any query) (trace format: "Folded polls").
POLL_UNSUCCESSFUL = {
    "MPI_Wtime": "1",
    "MPI_Wtick": "1",
    "MPI_Comm_rank": "1",
    "MPI_Comm_size": "1",
    "MPI_Initialized": "1",
    "MPI_Finalized": "1",
    "MPI_Query_thread": "1",
    "MPI_Is_thread_main": "1",
    "MPI_Test": "flag && !*flag",
    "MPI_Testall": "flag && !*flag",
    "MPI_Testany": "flag && !*flag",
    "MPI_Testsome": "outcount && *outcount == 0",
    "MPI_Iprobe": "flag && !*flag",
    "MPI_Improbe": "flag && !*flag",
    "MPI_Request_get_status": "flag && !*flag",
    "MPI_Win_test": "flag && !*flag",
}


# Calls that return without waiting for another process or running user code (callbacks):
# starts of nonblocking and persistent operations, and local datatype, group and packing
# work. Their wrappers end with mpicheck_end_instant, which reads no exit time while one thread
# records (trace format: flags::INSTANT); calls that can block keep entry and exit time, which
# the deadlock and timing views need.
_INSTANT_NAMES = {
    "Start", "Startall", "Get_count", "Get_elements", "Get_elements_x",
    "Type_size", "Type_size_x", "Type_get_extent", "Type_get_extent_x",
    "Type_get_true_extent", "Type_get_true_extent_x", "Type_commit", "Type_contiguous",
    "Type_vector", "Type_create_hvector", "Type_indexed", "Type_create_hindexed",
    "Type_create_indexed_block", "Type_create_hindexed_block", "Type_create_struct",
    "Type_create_subarray", "Type_create_darray", "Type_create_resized",
    "Comm_group", "Comm_test_inter", "Comm_remote_size", "Group_size", "Group_rank",
    "Group_translate_ranks", "Group_compare", "Group_union", "Group_intersection",
    "Group_difference", "Group_incl", "Group_excl", "Group_range_incl", "Group_range_excl",
    "Group_free", "Pack", "Unpack", "Pack_size", "Get_processor_name", "Get_version",
    "Get_library_version",
}
# Point-to-point operations whose `MPI_<op>_init` (persistent) is local; persistent
# collectives' initialization is collective, so it keeps both times.
_P2P_OPS = {"Send", "Bsend", "Ssend", "Rsend", "Recv"}


def cannot_block(name, names):
    """True for an MPI function (`names`: every function's name) that never waits."""
    if name in POLL_UNSUCCESSFUL:
        return False  # polls keep their own ending (folding)
    short = name[4:]
    if short.endswith("_c"):
        short = short[:-2]
    if short in _INSTANT_NAMES:
        return True
    if short.endswith("_init") and short[: -len("_init")] in _P2P_OPS:
        return True
    # MPI_I<op>: the nonblocking start of MPI_<Op> (MPI_Isend, MPI_Iallreduce, MPI_Imrecv);
    # not MPI_Init, MPI_Info_*, MPI_Intercomm_* (no MPI_Nit, MPI_Nfo_*, MPI_Ntercomm_*).
    if short.startswith("I") and len(short) > 1 and short[1].islower():
        blocking = "MPI_" + short[1].upper() + short[2:]
        return blocking in names
    return False


def end_call(func, ret):
    """The statement that finishes a non-poll record."""
    if cannot_block(func.name, ALL_NAMES):
        return f"mpicheck_end_instant(mpicheck_w, {ret});"
    return f"mpicheck_end(mpicheck_w, {ret});"


ALL_NAMES = set()


def gen_c_wrapper(func):
    acc = CAccess()
    name = func.name
    pname = "P" + name
    guard = f"MPICHECK_HAVE_{name}"
    params = [p for p in func.params]
    proto_params = ", ".join(p.decl for p in params) or "void"
    call_args = [p.name for p in params if p.mode != "varargs"]
    lines = [f"#ifdef {guard}"]
    lines.append(f"{func.return_type} {pname}({proto_params});")
    lines.append(f"{func.return_type} {name}({proto_params})")
    lines.append("{")
    direct = f"{pname}({', '.join(call_args)})"
    lines.append(f"    if (__builtin_expect(mpicheck_depth != 0, 0)) return {direct};")
    lines.append("    mpicheck_depth++;")
    lines.append("    if (__builtin_expect(mpicheck_buffers_on, 0)) mpicheck_buffers_enter();")
    body = []
    pre, nbytes = emit_record(func, acc, body, 1)
    # Status substitution: the user may pass MPI_STATUS(ES)_IGNORE; the library then writes
    # into a local status so the matched source and tag are still recorded. The user sees
    # nothing of it. The local statuses are zeroed first: MPI leaves fields of them unset
    # (MPI_ERROR unless it returns MPI_ERR_IN_STATUS, a send request's source and tag), and
    # stack leftovers there would make identical calls differ in their outputs (no counted
    # run or cycle) and the trace vary from run to run.
    call_map = {}
    post_free = []
    for prm in params:
        if prm.mode == "status":
            v = f"mpicheck_st_{prm.name}"
            if prm.dir == "in":
                body.append(f"const MPI_Status *{v} = {prm.name};")
            else:
                body.append(f"MPI_Status mpicheck_local_{prm.name};")
                body.append(
                    f"MPI_Status *{v} = {prm.name} == MPI_STATUS_IGNORE ? mpicheck_status_zeroed(&mpicheck_local_{prm.name}, 1) : {prm.name};"
                )
                call_map[prm.name] = v
    lines += ["    " + l for l in body]
    lines += ["    " + l for l in pre]
    for prm in params:
        if prm.mode == "statuses":
            v = f"mpicheck_st_{prm.name}"
            n = f"mpicheck_n_{prm.name}"
            lines.append(f"    MPI_Status mpicheck_stack_{prm.name}[MPICHECK_STACK_STATUSES];")
            lines.append(f"    MPI_Status *{v} = {prm.name};")
            lines.append(f"    if ({prm.name} == MPI_STATUSES_IGNORE && {n} > 0)")
            lines.append(
                f"        {v} = {n} <= MPICHECK_STACK_STATUSES ? mpicheck_stack_{prm.name} : (MPI_Status *)malloc(sizeof(MPI_Status) * (size_t){n});"
            )
            lines.append(f"    if ({v} == NULL) {{ {v} = MPI_STATUSES_IGNORE; {n} = -1; }}")
            lines.append(f"    if ({v} != {prm.name}) mpicheck_status_zeroed({v}, {n});")
            call_map[prm.name] = v
            post_free.append(
                f"if ({v} != {prm.name} && {v} != mpicheck_stack_{prm.name}) free({v});"
            )
    site = "__builtin_return_address(0)"
    poll = POLL_UNSUCCESSFUL.get(name)
    if poll:
        nbytes = poll_bytes(nbytes)
    flags = "MPICHECK_FLAG_POLL" if poll else "0"
    repeatable = not poll and inputs_first(params)
    if repeatable:
        lines.append("    int64_t mpicheck_s[MPICHECK_SCRATCH_WORDS];")
        # The record's argument bytes once: mpicheck_end_rep compares the outputs up to its
        # end (a constant for records without arrays: compared without a loop).
        lines.append(f"    uint32_t mpicheck_nbytes = (uint32_t)({nbytes});")
        lines.append(f"    int64_t *mpicheck_w = mpicheck_begin_repeatable_bytes({func.id}, mpicheck_nbytes, {site}, {flags}, mpicheck_s);")
        lines.append("    uint32_t mpicheck_in = 0;")
        lines.append("    uint8_t *mpicheck_r = NULL;")
    else:
        lines.append(f"    int64_t *mpicheck_w = mpicheck_begin_bytes({func.id}, (uint32_t)({nbytes}), {site}, {flags});")
    outs = [p for p in params if p.mode not in ("varargs", "addr") and p.dir in ("out", "inout")]
    for prm in outs:
        lines.append(f"    {output_decl(prm)}")
    lines.append("    if (mpicheck_w) {")
    lines += ["        " + l for l in cursor_decls()]
    outputs_start = None
    # The cursor's offset from w as a constant expression while only scalars (and statuses)
    # came before it, else None: the input bytes of a record then are a constant, which the
    # inline comparison of mpicheck_enter_rep unrolls (w is 8-byte aligned, so the offset is
    # what the pointer arithmetic gives).
    known = "0"

    def advance(prm, known):
        if known is None:
            return None
        if prm.mode in ("value", "addr", "deref"):
            return f"{known} + {prm.width()}"
        if prm.mode == "status":
            return f"MPICHECK_ALIGN8({known}) + 8 * MPICHECK_STATUS_WORDS"
        return None

    for prm in params:
        if prm.mode == "varargs":
            continue
        ins = []
        if prm.dir in ("in", "inout") and not (prm.mode == "addr" and prm.dir == "inout"):
            gen_input(func, acc, prm, ins)
            known = advance(prm, known)
        if prm.mode == "addr" and prm.dir != "in":
            # Addresses are known on entry: written in every slot right away.
            for _ in range(2 if prm.dir == "inout" else 1):
                gen_input(func, acc, prm, ins)
                known = advance(prm, known)
        elif prm.dir in ("out", "inout"):
            reserve_output(prm, ins)
            if outputs_start is None:
                outputs_start = f"mpicheck_o_{prm.name}"
                if repeatable and known is not None:
                    start = known if prm.mode in ("value", "deref") else f"MPICHECK_ALIGN8({known})"
                    ins.append(f"mpicheck_in = (uint32_t)({start});")
                elif repeatable:
                    ins.append(f"mpicheck_in = (uint32_t)((unsigned char *)mpicheck_o_{prm.name} - (unsigned char *)mpicheck_w);")
            known = None
        lines += ["        " + l for l in ins]
    if repeatable and outputs_start is None:
        # No outputs: the padding after the inputs need not be repeated either.
        if known is not None:
            lines.append(f"        mpicheck_in = (uint32_t)MPICHECK_ALIGN8({known});")
        else:
            lines.append("        mpicheck_in = (uint32_t)MPICHECK_ALIGN8(mpicheck_p - (unsigned char *)mpicheck_w);")
    lines.append("        (void)mpicheck_p;")
    lines.append("        (void)mpicheck_q;")
    if repeatable:
        lines.append("        mpicheck_r = mpicheck_enter_rep(mpicheck_w, mpicheck_s, mpicheck_in);")
    else:
        lines.append("        mpicheck_entered(mpicheck_w);")
    lines.append("    }")
    keyval = KEYVAL_CREATORS.get(func.name)
    if keyval:
        kind, copy, delete = keyval
        lines.append(
            f"    void *mpicheck_kv = mpicheck_w ? mpicheck_keyval_state((void (*)(void)){copy}, (void (*)(void)){delete}, extra_state) : NULL;"
        )
        call_map[copy] = f"(mpicheck_kv ? mpicheck_{kind}_copy_trampoline : {copy})"
        call_map[delete] = f"(mpicheck_kv ? mpicheck_{kind}_delete_trampoline : {delete})"
        call_map["extra_state"] = "(mpicheck_kv ? mpicheck_kv : extra_state)"
    completes = BUFFER_COMPLETERS.get(func.name)
    lines += ["    " + l for l in buffer_pre_hooks(func)]
    if completes:
        reqs, n, _ = completes
        lines.append(
            f"    uint64_t mpicheck_bk = __builtin_expect(mpicheck_buffers_on, 0) ? mpicheck_buffers_mark({reqs}, {n}) : 0;"
        )
    args = [call_map.get(a, a) for a in call_args]
    if func.return_type == "void":
        lines.append(f"    {pname}({', '.join(args)});")
        ret = "0"
    else:
        lines.append(f"    {func.return_type} mpicheck_ret = {pname}({', '.join(args)});")
        ret = "mpicheck_ret" if func.return_type == "int" else "0"
    lines.append("    if (mpicheck_w) {")
    outl = []
    for prm in outs:
        gen_output(func, acc, prm, outl)
    lines += ["        " + l for l in outl]
    if poll:
        lines.append(f"        mpicheck_end_poll(mpicheck_w, {ret}, {ret} == MPI_SUCCESS && ({poll}));")
    elif repeatable:
        instant = 1 if cannot_block(func.name, ALL_NAMES) else 0
        lines.append(f"        mpicheck_end_rep(mpicheck_r, mpicheck_w, mpicheck_in, mpicheck_nbytes, {ret}, {instant});")
    else:
        lines.append(f"        {end_call(func, ret)}")
    lines.append("    }")
    lines += ["    " + l for l in post_hooks(func, "site_of_call")]
    lines += ["    " + l for l in post_free]
    if completes:
        lines.append("    " + buffer_settle_hook(func))
    lines += ["    " + l for l in buffer_post_hooks(func, "site_of_call")]
    lines.append("    if (__builtin_expect(mpicheck_buffers_on, 0)) mpicheck_buffers_leave();")
    lines.append("    mpicheck_depth--;")
    if func.return_type != "void":
        lines.append("    return mpicheck_ret;")
    lines.append("}")
    lines.append("#endif")
    text = "\n".join(lines)
    return text.replace("site_of_call", site)


def inputs_first(params):
    """Whether every input word of the record comes before its first output word: then a
    repeat record (trace format 5) can leave out the inputs and keep the outputs, which it
    takes from the first output on. Records of other functions are always written in full."""
    seen_output = False
    for prm in params:
        if prm.mode == "varargs":
            continue
        addr = prm.mode == "addr"
        writes_input = (prm.dir in ("in", "inout") and not (addr and prm.dir == "inout")) or (
            addr and prm.dir != "in"
        )
        if writes_input and seen_output:
            return False
        if not addr and prm.dir in ("out", "inout"):
            seen_output = True
    return True


def poll_bytes(nbytes):
    """A poll's record: its words, then the two fold words at the record's end."""
    return f"MPICHECK_ALIGN8({nbytes}) + 8 * MPICHECK_POLL_FOLD_WORDS"


def cursor_decls():
    """The cursors a wrapper writes the words with: p over bytes, q over 8-byte words."""
    return ["unsigned char *mpicheck_p = (unsigned char *)mpicheck_w;", "int64_t *mpicheck_q = NULL;"]


def words_expr(prm):
    """The 8-byte words of a status or statuses parameter (one copy of it)."""
    if prm.mode == "status":
        return "MPICHECK_STATUS_WORDS"
    return f"1 + MPICHECK_STATUS_WORDS * MPICHECK_POS(mpicheck_n_{prm.name})"


def post_hooks(func, site, flags="0", ret_ok="mpicheck_ret == MPI_SUCCESS", comm_out=None):
    """Pseudo-records and process state updates after the call returned."""
    out = []
    base = func.name[:-2] if func.embiggened else func.name
    if base in ("MPI_Init", "MPI_Init_thread"):
        out.append(f"if ({ret_ok}) mpicheck_after_init();")
    if base == "MPI_Finalize":
        out.append(f"if ({ret_ok}) mpicheck_after_finalize();")
    if func.name not in NONBLOCKING_COMM_CREATORS:
        for prm in func.params:
            if prm.kind == "COMMUNICATOR" and prm.dir == "out" and prm.mode == "deref":
                c = comm_out(prm) if comm_out else f"*{prm.name}"
                out.append(f"if ({ret_ok}) mpicheck_comm_info({COMM_INFO_ID}, {c}, {site}, {flags});")
    if base == "MPI_Type_commit":
        c = comm_out(func.params[0]) if comm_out else "*datatype"
        out.append(f"if ({ret_ok}) mpicheck_type_info({TYPE_INFO_ID}, {c}, {site}, {flags});")
    return out


COMM_INFO_ID = None
TYPE_INFO_ID = None

HEADER = """/* GENERATED by crates/mpicheck-interpose/gen/gen_wrappers.py from the MPI Forum's apis.json.
 * Do not edit: change the generator and regenerate (a test diffs this file against it). */
"""


def schema_widths(funcs):
    """The width of every scalar and array field (`:s`, `:a`) of the function table, in order,
    as this MPI's sizeof of its (element) C type (trace format 4; functions this MPI lacks
    take 8), and the buffer support.c writes the table with widths into (`s` -> `s4`/`s8`,
    `a` -> `a4`/`a8`)."""
    out = ["/* Bytes of each scalar and array element of the table above, in order (support.c appends them). */"]
    out.append("const unsigned char mpicheck_schema_widths[] = {")
    count = 0
    for f in funcs:
        scalars = [p for p in f.params if p.mode != "varargs" and p.shape in ("s", "a")]
        if not scalars:
            continue
        count += len(scalars)
        out.append(f"#ifdef MPICHECK_HAVE_{f.name}")
        out.append("    " + ", ".join(p.width() for p in scalars) + ",")
        out.append("#else")
        out.append("    " + ", ".join("8" for _ in scalars) + ",")
        out.append("#endif")
    # The pseudo-calls' words are written by hand as 8-byte words.
    pseudo = sum(1 for p in PSEUDO for field in p.split()[1:] if field.endswith((":s", ":a")))
    count += pseudo
    out.append("    " + ", ".join("8" for _ in range(pseudo)) + ",")
    out.append("};")
    out.append(f"const uint32_t mpicheck_schema_scalars = {count};")
    out.append(
        f'_Static_assert(sizeof(mpicheck_schema_widths) == {count}, "one width per scalar field");'
    )
    # One more byte per scalar (its width) and per status shape (`st3`, `sa3`).
    statuses = sum(1 for f in funcs for p in f.params if p.mode != "varargs" and p.shape in ("st", "sa"))
    statuses += sum(1 for p in PSEUDO for field in p.split()[1:] if field.endswith((":st", ":sa")))
    out.append(f"char mpicheck_schema_sized[sizeof(mpicheck_schema_text) + {count} + {statuses}];")
    return out


def gen_wrappers_c(funcs):
    out = [HEADER]
    out.append(
        """/* Which functions this MPI has (written by the build script from the family's mpi.h). */
#include "have.h"

/* The wrappers are defined with the standard's prototypes. MPI implementations differ from the
 * standard (and from each other) in const-ness and in typedef spellings of the same types, which
 * would make a definition clash with mpi.h's declaration. So mpi.h's declarations of the
 * wrapped functions are renamed away while it is included, and the wrappers declare the PMPI
 * entry points themselves with the standard's prototype (the ABI is the same). */"""
    )
    for f in funcs:
        out.append(f"#ifdef MPICHECK_HAVE_{f.name}")
        out.append(f"#define {f.name} mpicheck_hidden_{f.name}")
        out.append(f"#define P{f.name} mpicheck_hidden_P{f.name}")
        out.append("#endif")
    out.append("#include <mpi.h>")
    for f in funcs:
        out.append(f"#ifdef MPICHECK_HAVE_{f.name}")
        out.append(f"#undef {f.name}")
        out.append(f"#undef P{f.name}")
        out.append("#endif")
    out.append('#include "mpicheck_interpose.h"')
    out.append("")
    out.append("/* The function table written at the start of every trace (format: mpicheck_trace::schema). */")
    out.append("const char mpicheck_schema_text[] =")
    for f in funcs:
        out.append(f'    "{f.schema()}\\n"')
    for i, p in enumerate(PSEUDO):
        out.append(f'    "{len(funcs) + i} {p}\\n"')
    out.append("    ;")
    out += schema_widths(funcs)
    out.append("const uint16_t mpicheck_sync_id = %d;" % (len(funcs) + PSEUDO_NAMES.index("MPICHECK_Sync")))
    out.append("const uint16_t mpicheck_access_id = %d;" % (len(funcs) + PSEUDO_NAMES.index("MPICHECK_Access")))
    out.append("const uint16_t mpicheck_buffers_id = %d;" % (len(funcs) + PSEUDO_NAMES.index("MPICHECK_Buffers")))
    out.append("")
    for f in funcs:
        out.append(gen_c_wrapper(f))
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Fortran
# ---------------------------------------------------------------------------------------------

# Every procedure of the standard with a Fortran binding gets Fortran entry points, except
# these, which are excluded on purpose (name -> reason). Procedures without a C binding
# (MPI_Sizeof, MPI_F_sync_reg) have no entry in the function table and are never recorded;
# procedures without a Fortran binding (handle conversions, MPI_T_*) need none.
FORTRAN_EXCLUDED = {
    # None at present: every such procedure is wrapped. Reasons that would put one here: its
    # Fortran entry point's arguments cannot be forwarded unchanged (e.g. a library routine
    # whose real signature differs from the standard's), or recording it would call into MPI
    # where that is not allowed. Procedures whose Fortran binding is not an exported symbol
    # (Open MPI's `mpi_f08` MPI_Wtime/MPI_Wtick are BIND(C) to the C MPI_Wtime) are recorded by
    # the C wrapper, without MPICHECK_FLAG_FORTRAN.
}

# Kinds of Fortran choice arguments that MPICH's `mpi_f08` `_f08ts` routines take as
# TYPE(*), DIMENSION(..) array descriptors. C_BUFFER2 (detached buffer addresses) is a
# TYPE(C_PTR) in mpi_f08, passed by reference like in mpif.h.
DESC_KINDS = {"BUFFER"}
# Kinds passed as CHARACTER(*) dummies: each adds a hidden length argument at the end.
STRING_KINDS = {"STRING", "STRING_ARRAY", "STRING_2DARRAY"}
# Array arguments whose Fortran sentinels (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY,
# MPI_ERRCODES_IGNORE) are addresses of library globals: mapped to the C constants before the
# length expressions compare against them.
SENTINEL_ARRAY_KINDS = {"WEIGHT", "ERROR_CODE"}

# The Fortran entry points, by symbol suffix (gfortran's naming: lowercase, one trailing
# underscore): (suffix, how choice buffers arrive, large-count binding, which procedures).
# "desc": the array descriptor of MPICH's `mpi_f08` TYPE(*), DIMENSION(..) routines, whose
# first field is the base address. Each entry point is compiled only where the family's
# Fortran libraries export the symbol (MPICHECK_HAVE_F_<symbol>, written by the build script),
# so the table can list every variant either family has.
FLAVOURS = [
    # mpif.h and `use mpi` (both families).
    ("_", "plain", False, "all"),
    # `use mpi_f08`: Open MPI's routines (choice buffers by address), MPICH's routines without
    # a choice buffer.
    ("_f08_", "plain", False, "all"),
    # `use mpi_f08`: MPICH's routines with a TYPE(*), DIMENSION(..) buffer.
    ("_f08ts_", "desc", False, "choice"),
    # `use mpi_f08` large-count (MPI_Xxx_c) routines of MPICH, without and with a buffer.
    ("_f08_large_", "plain", True, "all"),
    ("_f08ts_large_", "desc", True, "choice"),
    # Open MPI's `use mpi` TYPE(C_PTR) overloads (MPI_Alloc_mem, MPI_Win_allocate...).
    ("_cptr_", "plain", False, "cptr"),
]

# C handle type -> the conversion from a Fortran integer handle.
F2C = {
    "MPI_Comm": "PMPI_Comm_f2c",
    "MPI_Datatype": "PMPI_Type_f2c",
    "MPI_Request": "PMPI_Request_f2c",
    "MPI_Op": "PMPI_Op_f2c",
    "MPI_Group": "PMPI_Group_f2c",
    "MPI_Info": "PMPI_Info_f2c",
    "MPI_Message": "PMPI_Message_f2c",
    "MPI_Win": "PMPI_Win_f2c",
    "MPI_File": "PMPI_File_f2c",
    "MPI_Errhandler": "PMPI_Errhandler_f2c",
    "MPI_Session": "PMPI_Session_f2c",
}

# C return types of the procedures that are Fortran functions (MPI_Wtime, MPI_Aint_add...).
F_RETURN_TYPES = {"double", "MPI_Aint"}


def fconv(p, expr):
    """The C value of a Fortran argument's value `expr`: handles through PMPI_*_f2c, request
    indices from 1-based to 0-based."""
    if getattr(p, "fortran_one_based", False):
        return f"mpicheck_f_index_to_c({expr})"
    if p.base_type in F2C:
        return f"{F2C[p.base_type]}({expr})"
    return f"({p.base_type})({expr})"


class FAccess(CAccess):
    """Reads C values in a Fortran wrapper. The Fortran arguments are named f_<name>; locals
    named like the C parameters hold C values of scalars (so the length expressions of the C
    wrappers work unchanged) and alias the Fortran arrays and output pointers."""

    def value(self, p):
        return p.name

    def deref(self, p):
        return f"MPICHECK_W({fconv(p, '*f_' + p.name)})"

    def elem(self, p, i):
        return fconv(p, f"f_{p.name}[{i}]")

    def elem_ptr(self, p):
        """The pointer whose entries the record copies (converted one by one)."""
        return f"f_{p.name}"

    def status_ptr(self, p):
        return f"mpicheck_cst_{p.name}"

    def addr(self, p):
        return p.name


def fortran_type(p):
    """The C type a Fortran argument arrives as (always by reference)."""
    if p.mode == "addr":
        return "void *"
    if p.base_type in ("MPI_Aint", "MPI_Count", "MPI_Offset"):
        return p.base_type + " *"
    return "MPI_Fint *"


# The Fortran type each C-side pointer type stands for, checked against the standard's Fortran
# declarations so that a mismatch fails generation instead of a program at run time.
F90_TYPES = {
    "MPI_Fint *": ("INTEGER", "LOGICAL"),
    "MPI_Aint *": ("INTEGER(KIND=MPI_ADDRESS_KIND)",),
    "MPI_Count *": ("INTEGER(KIND=MPI_COUNT_KIND)",),
    "MPI_Offset *": ("INTEGER(KIND=MPI_OFFSET_KIND)",),
}


class FortranBinding:
    """The Fortran binding of one C function (`MPI_Send`, or `MPI_Send_c` for the large-count
    `mpi_f08` routines): its arguments in order, hidden string lengths, return value."""

    def __init__(self, func):
        self.func = func
        proc = func.proc
        expr = proc.express.embiggen.f08 if func.embiggened else proc.express.f90
        names = [q.name.lower() for q in expr.parameters]
        self.has_ierror = "ierror" in names
        names = [n for n in names if n != "ierror"]
        by_name = {p.name: p for p in func.params}
        missing = [n for n in names if n not in by_name]
        assert not missing, (func.name, missing)
        # In C order (the Fortran order is the same; checked).
        self.params = [by_name[n] for n in names]
        assert [p.name for p in func.params if p.name in names] == names, func.name
        self.strings = [p for p in self.params if p.kind in STRING_KINDS]
        # The indices MPI_Waitany/Testany/Waitsome/Testsome (and the get_status forms)
        # return count requests from 1 in Fortran (MPI 4.1 §3.7.5); the trace holds C's.
        lists_requests = any(p.name == "array_of_requests" for p in self.params)
        for p in self.params:
            p.fortran_one_based = lists_requests and p.kind == "INDEX" and p.dir == "out"
        ret = None if func.embiggened else expr.return_type
        self.return_type = func.return_type if ret else None
        assert self.return_type in (None,) + tuple(F_RETURN_TYPES), (func.name, func.return_type)
        if not func.embiggened:
            for q in expr.parameters:
                if q.name.lower() == "ierror":
                    continue
                p = by_name[q.name.lower()]
                want = F90_TYPES.get(fortran_type(p))
                assert want is None or q.type in want, (func.name, p.name, fortran_type(p), q.type)
        self.choice = any(p.kind in DESC_KINDS for p in self.params)
        self.cptr = not func.embiggened and proc._parseset["attributes"]["f90_index_overload"] is not None

    def arg_types(self):
        types = [fortran_type(p) for p in self.params]
        names = [f"f_{p.name}" for p in self.params]
        if self.has_ierror:
            types.append("MPI_Fint *")
            names.append("ierror")
        for p in self.strings:
            types.append("size_t ")
            names.append(f"f_len_{p.name}")
        return types, names

    def symbols(self):
        """(symbol, buffer mode) of every entry point this binding may have."""
        base = (self.func.name[:-2] if self.func.embiggened else self.func.name)[4:].lower()
        out = []
        for suffix, bufmode, large, which in FLAVOURS:
            if large != self.func.embiggened:
                continue
            if which == "choice" and not self.choice:
                continue
            if which == "cptr" and not self.cptr:
                continue
            out.append((f"mpi_{base}{suffix}", bufmode))
        return out


def gen_fortran_impl(binding, bufmode, impl):
    """The recording body shared by the entry points of one binding and buffer mode: records
    the call with the C values of its arguments and forwards it to the MPI library's routine
    `next_name` (looked up once into *next)."""
    func = binding.func
    acc = FAccess()
    params = binding.params
    ftypes, fnames = binding.arg_types()
    fproto = ", ".join(f"{t}{n}" for t, n in zip(ftypes, fnames))
    ret_type = binding.return_type or "void"
    fn_type = f"{ret_type} (*)({', '.join(ftypes) or 'void'})"
    lines = [f"static {ret_type} {impl}(void **next, const char *next_name, const void *site{', ' if fproto else ''}{fproto})", "{"]
    lines.append("    if (!*next) *next = mpicheck_fortran_next(next_name);")
    direct = f"(({fn_type})*next)({', '.join(fnames)})"
    if binding.return_type:
        lines.append(f"    if (__builtin_expect(mpicheck_depth != 0, 0)) return {direct};")
    else:
        lines.append(f"    if (__builtin_expect(mpicheck_depth != 0, 0)) {{ {direct}; return; }}")
    lines.append("    mpicheck_depth++;")
    lines.append("    if (__builtin_expect(mpicheck_buffers_on, 0)) mpicheck_buffers_enter();")
    # C views of the arguments, named like the C parameters.
    for p in params:
        if p.mode == "value":
            lines.append(f"    {p.base_type} {p.name} = {fconv(p, '*f_' + p.name)};")
        elif p.mode == "addr":
            if p.kind in DESC_KINDS:
                raw = f"mpicheck_desc_base(f_{p.name})" if bufmode == "desc" else f"f_{p.name}"
                lines.append(f"    const void *{p.name} = mpicheck_f_buf({raw});")
            else:
                lines.append(f"    const void *{p.name} = f_{p.name};")
        elif p.mode == "array" and p.kind in SENTINEL_ARRAY_KINDS:
            lines.append(
                f"    {fortran_type(p)}{p.name} __attribute__((unused)) = ({fortran_type(p)})mpicheck_f_array(f_{p.name});"
            )
        elif p.mode in ("deref", "array"):
            # Used by length expressions and flag tests only where the C wrapper uses them.
            lines.append(f"    {fortran_type(p)}{p.name} __attribute__((unused)) = f_{p.name};")
    call_map = {}
    post_free = []
    pre, nbytes = emit_record(func, acc, [], 1)
    lines += ["    " + l for l in pre]
    # Statuses: an output's Fortran MPI_STATUS(ES)_IGNORE is replaced by local storage (the
    # library fills it instead), and each Fortran status is converted to C, for recording
    # only: inputs before the call, outputs after it.
    for p in params:
        if p.mode == "status" and p.dir == "out":
            lines.append(f"    MPI_Fint mpicheck_fst_{p.name}[MPICHECK_F_STATUS_WORDS];")
            lines.append(
                f"    MPI_Fint *mpicheck_fs_{p.name} = mpicheck_f_status_ignored(f_{p.name}) ? mpicheck_fst_{p.name} : f_{p.name};"
            )
            lines.append(f"    MPI_Status mpicheck_cst_{p.name}[1];")
            call_map[f"f_{p.name}"] = f"mpicheck_fs_{p.name}"
        elif p.mode == "status":
            lines.append(f"    MPI_Fint *mpicheck_fs_{p.name} = f_{p.name};")
            lines.append(f"    MPI_Status mpicheck_cst_{p.name}[1];")
            lines.append(f"    mpicheck_f_status_to_c(mpicheck_fs_{p.name}, mpicheck_cst_{p.name});")
        elif p.mode == "statuses":
            assert p.dir == "out", (func.name, p.name)
            n = f"mpicheck_n_{p.name}"
            lines.append(f"    MPI_Fint *mpicheck_fs_{p.name} = f_{p.name};")
            lines.append(f"    MPI_Status *mpicheck_cst_{p.name} = NULL;")
            lines.append(f"    if ({n} > 0) {{")
            lines.append(f"        if (mpicheck_f_status_ignored(f_{p.name}))")
            lines.append(
                f"            mpicheck_fs_{p.name} = (MPI_Fint *)malloc(sizeof(MPI_Fint) * MPICHECK_F_STATUS_WORDS * (size_t){n});"
            )
            lines.append(f"        mpicheck_cst_{p.name} = (MPI_Status *)malloc(sizeof(MPI_Status) * (size_t){n});")
            lines.append(f"        if (!mpicheck_fs_{p.name} || !mpicheck_cst_{p.name}) {{")
            lines.append(f"            if (mpicheck_fs_{p.name} != f_{p.name}) free(mpicheck_fs_{p.name});")
            lines.append(f"            mpicheck_fs_{p.name} = f_{p.name};")
            lines.append(f"            {n} = -1;")
            lines.append("        }")
            lines.append("    }")
            call_map[f"f_{p.name}"] = f"mpicheck_fs_{p.name}"
            post_free.append(f"if (mpicheck_fs_{p.name} != f_{p.name}) free(mpicheck_fs_{p.name});")
            post_free.append(f"free(mpicheck_cst_{p.name});")
    # Polls fold as in the C wrapper; the condition reads the Fortran flag or count, whose
    # C views are named like the C parameters (a Fortran .false. is 0).
    poll = POLL_UNSUCCESSFUL.get(func.name)
    if poll:
        nbytes = poll_bytes(nbytes)
    flags = "MPICHECK_FLAG_FORTRAN | MPICHECK_FLAG_POLL" if poll else "MPICHECK_FLAG_FORTRAN"
    lines.append(
        f"    int64_t *mpicheck_w = mpicheck_begin_bytes({func.id}, (uint32_t)({nbytes}), site, {flags});"
    )
    outs = [p for p in params if p.mode != "addr" and p.dir in ("out", "inout")]
    for prm in outs:
        lines.append(f"    {output_decl(prm)}")
    lines.append("    if (mpicheck_w) {")
    lines += ["        " + l for l in cursor_decls()]
    for prm in func.params:
        if prm.mode == "varargs":
            continue
        ins = []
        if prm not in params:
            # A C parameter the Fortran binding does not have (MPI_Init's argc and argv).
            ins += [f"MPICHECK_PUT(mpicheck_p, {prm.width()}, 0);"] * (2 if prm.dir == "inout" else 1)
            if prm.mode in ("array", "statuses", "status"):
                raise AssertionError((func.name, prm.name))
        elif prm.mode == "addr":
            for _ in range(2 if prm.dir == "inout" else 1):
                gen_input(func, acc, prm, ins)
        else:
            if prm.dir in ("in", "inout"):
                gen_input(func, acc, prm, ins)
            if prm.dir in ("out", "inout"):
                reserve_output(prm, ins)
        lines += ["        " + l for l in ins]
    lines.append("        (void)mpicheck_p;")
    lines.append("        (void)mpicheck_q;")
    lines.append("        mpicheck_entered(mpicheck_w);")
    lines.append("    }")
    buffer_pre, buffer_post = fortran_buffer_hooks(func, bufmode, "site")
    lines += ["    " + l for l in buffer_pre]
    args = [call_map.get(a, a) for a in fnames]
    call = f"(({fn_type})*next)({', '.join(args)})"
    if binding.return_type:
        lines.append(f"    {binding.return_type} mpicheck_result = {call};")
    else:
        lines.append(f"    {call};")
    if binding.has_ierror:
        lines.append("    int mpicheck_ret = ierror ? (int)*ierror : MPI_SUCCESS;")
    else:
        lines.append("    int mpicheck_ret = MPI_SUCCESS;")
    lines.append("    if (mpicheck_w) {")
    outl = []
    for p in params:
        if p.mode == "status" and p.dir != "in":
            outl.append(f"mpicheck_f_status_to_c(mpicheck_fs_{p.name}, mpicheck_cst_{p.name});")
        elif p.mode == "statuses":
            n = f"mpicheck_n_{p.name}"
            outl.append(
                f"for (int64_t mpicheck_i = 0; mpicheck_i < {n}; mpicheck_i++) mpicheck_f_status_to_c(mpicheck_fs_{p.name} + MPICHECK_F_STATUS_WORDS * mpicheck_i, &mpicheck_cst_{p.name}[mpicheck_i]);"
            )
    for prm in outs:
        gen_output(func, acc, prm, outl)
    lines += ["        " + l for l in outl]
    if poll:
        lines.append(
            f"        mpicheck_end_poll(mpicheck_w, mpicheck_ret, mpicheck_ret == MPI_SUCCESS && ({poll}));"
        )
    else:
        lines.append(f"        {end_call(func, 'mpicheck_ret')}")
    lines.append("    }")
    hooks = post_hooks(func, "site", flags="MPICHECK_FLAG_FORTRAN", comm_out=lambda p: fconv(p, "*f_" + p.name))
    lines += ["    " + l for l in hooks]
    lines += ["    " + l for l in buffer_post]
    lines += ["    " + l for l in post_free]
    lines.append("    if (__builtin_expect(mpicheck_buffers_on, 0)) mpicheck_buffers_leave();")
    lines.append("    mpicheck_depth--;")
    if binding.return_type:
        lines.append("    return mpicheck_result;")
    lines.append("}")
    return lines


def gen_fortran_binding(binding):
    """The implementations (one per buffer mode in use) and the entry points of one binding,
    each entry point compiled only if the MPI's Fortran libraries export its symbol."""
    func = binding.func
    symbols = binding.symbols()
    ftypes, fnames = binding.arg_types()
    fproto = ", ".join(f"{t}{n}" for t, n in zip(ftypes, fnames)) or "void"
    ret_type = binding.return_type or "void"
    ret = "return " if binding.return_type else ""
    lower = func.name[4:].lower()
    out = [f"#ifdef MPICHECK_HAVE_{func.name}"]
    for bufmode in sorted({m for _, m in symbols}, reverse=True):
        users = [s for s, m in symbols if m == bufmode]
        impl = f"mpicheck_f_{bufmode}_{lower}"
        out.append("#if " + " || ".join(f"defined(MPICHECK_HAVE_F_{s})" for s in users))
        out += gen_fortran_impl(binding, bufmode, impl)
        for sym in users:
            out.append(f"#ifdef MPICHECK_HAVE_F_{sym}")
            out.append(f"{ret_type} {sym}({fproto})")
            out.append("{")
            out.append("    static void *next;")
            out.append(
                f'    {ret}{impl}(&next, "{sym}", {", ".join(["__builtin_return_address(0)"] + fnames)});'
            )
            out.append("}")
            out.append("#endif")
        out.append("#endif")
    out.append("#endif")
    return "\n".join(out)


def fortran_bindings(funcs):
    out = []
    for f in funcs:
        proc = f.proc
        if f.name in FORTRAN_EXCLUDED or (f.name[:-2] if f.embiggened else f.name) in FORTRAN_EXCLUDED:
            continue
        if f.embiggened:
            if proc.express.embiggen.f08 is None:
                continue
        elif proc.express.f90 is None:
            continue
        out.append(FortranBinding(f))
    return out


def gen_fortran_c(funcs):
    out = [HEADER]
    out.append(
        """/* Fortran entry points of every procedure with a Fortran binding (mpif.h, `use mpi`,
 * `use mpi_f08`, large-count and C_PTR variants). Open MPI's Fortran bindings call PMPI_*
 * directly, so the C wrappers never see Fortran calls; MPICH's call the C MPI_* symbols, which
 * the depth guard then leaves unrecorded. Either way the call is recorded once, here, with
 * MPICHECK_FLAG_FORTRAN and the Fortran caller's return address, and forwarded to the MPI
 * library's own Fortran routine of the same name (dlsym RTLD_NEXT). Handles are converted
 * with PMPI_*_f2c so the trace holds the same values as for C. An entry point is compiled
 * only if the MPI's Fortran libraries export its symbol (MPICHECK_HAVE_F_*, from have.h). */
#include "have.h"
#include <mpi.h>
#include "mpicheck_interpose.h"
#include "mpicheck_fortran.h"
"""
    )
    for b in fortran_bindings(funcs):
        out.append(gen_fortran_binding(b))
        out.append("")
    return "\n".join(out)


def fortran_symbols(funcs):
    """Every Fortran entry point symbol the generated code may define (for the build script)."""
    return sorted({s for b in fortran_bindings(funcs) for s, _ in b.symbols()})


def main():
    global COMM_INFO_ID, TYPE_INFO_ID
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "c", "generated")
    funcs = load_functions()
    ALL_NAMES.update(f.name for f in funcs)
    COMM_INFO_ID = len(funcs)
    TYPE_INFO_ID = len(funcs) + 1
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "wrappers.c"), "w") as fh:
        fh.write(gen_wrappers_c(funcs) + "\n")
    with open(os.path.join(out_dir, "fortran.c"), "w") as fh:
        fh.write(gen_fortran_c(funcs) + "\n")


if __name__ == "__main__":
    main()
