"""The MPI standard's functions as mpicheck records them: the MPI Forum's API description
(the pinned `pympistandard`), each parameter's recording kind and length, and the pseudo
functions of the recorder. Imported by gen_wrappers.py (see there)."""

import os
import re
import sys

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


class RequestAddress:
    """The address of a request parameter's variable (or of an array's first entry), as a
    record word of its own: MPI hands out one shared handle value for operations that complete
    at once, and two such requests live at once are told apart by the variable the program
    keeps each in (the analyzer's normalizer, `requests.rs`). Not a C parameter."""

    def __init__(self, target):
        self.target = target
        self.func = target.func
        self.name = target.name + "_address"
        self.kind = "REQUEST_ADDRESS"
        self.dir = "in"
        self.root_only = False
        self.decl = None
        self.base_type = "void"
        self.pointer_level = 1
        self.array = ""
        self.has_func_type = False
        self.length = None
        self.valid = None
        self.mode = "addr"

    shape = Param.shape
    width = Param.width
    schema = Param.schema


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
        self._add_request_addresses()
        self.id = None

    def _add_request_addresses(self):
        """Puts an `<x>_address` word before each request parameter passed by pointer (see
        RequestAddress), and before any output ahead of it, so that the inputs of the record
        still come first (repeat records)."""
        for i, p in enumerate(list(self.params)):
            if p.kind != "REQUEST" or p.mode not in ("deref", "array"):
                continue
            at = self.params.index(p)
            first_out = next(
                (j for j, q in enumerate(self.params) if q.mode not in ("addr", "varargs") and q.dir in ("out", "inout")),
                at,
            )
            self.params.insert(min(at, first_out), RequestAddress(p))

    def c_params(self):
        """The parameters of the C prototype (without the words the record adds)."""
        return [p for p in self.params if not isinstance(p, RequestAddress)]

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
    # table full), findings dropped (table full), buffers given up (MPICHECK_Given_up), and
    # faults on watched pages that were not accesses to a watched buffer's own bytes.
    "MPICHECK_Buffers watched:INT:in:s unwatched:INT:in:s dropped:INT:in:s given_up:INT:in:s neighbour_faults:INT:in:s",
    # A call site whose buffers buffer checking gave up at MPI_Finalize (the record's call
    # site): the neighbour faults charged to it, its buffers not watched because of that.
    "MPICHECK_Given_up faults:INT:in:s buffers:INT:in:s",
]

PSEUDO_NAMES = [p.split()[0] for p in PSEUDO]
