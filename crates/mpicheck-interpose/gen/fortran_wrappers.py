"""The Fortran recording wrappers (`fortran.c`): the entry points of every procedure with a
Fortran binding, in each of the MPIs' flavours. Imported by gen_wrappers.py (see there)."""

from buffer_hooks import fortran_buffer_hooks
from mpi_functions import RequestAddress
from c_wrappers import (
    HEADER,
    POLL_UNSUCCESSFUL,
    CAccess,
    buffers_hooks,
    cursor_decls,
    emit_record,
    end_call,
    gen_input,
    gen_output,
    output_decl,
    poll_bytes,
    post_hooks,
    reserve_output,
)

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
        if isinstance(p, RequestAddress):
            # The Fortran variable (or array) itself: INTEGER handles, or mpi_f08's
            # TYPE(MPI_Request) of one INTEGER, 4 bytes an entry.
            return f"f_{p.target.name}"
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
    buffers_enter, buffers_leave = buffers_hooks(func.name)
    lines.append(buffers_enter)
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
        if isinstance(prm, RequestAddress):
            gen_input(func, acc, prm, ins)
        elif prm not in params:
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
    if buffers_leave:
        lines.append(buffers_leave)
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
