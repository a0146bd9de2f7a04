"""The C recording wrappers (`wrappers.c`): one `MPI_Xxx` per C function of the standard,
and the function table. Imported by gen_wrappers.py (see there)."""

from buffer_hooks import (
    BUFFER_COMPLETERS,
    buffer_post_hooks,
    buffer_pre_hooks,
    buffer_settle_hook,
)
from mpi_functions import (
    KEYVAL_CREATORS,
    NONBLOCKING_COMM_CREATORS,
    PSEUDO,
    PSEUDO_NAMES,
    RequestAddress,
)

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
        if isinstance(p, RequestAddress):
            return p.target.name
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


# Calls that only read local state (clocks, ranks, sizes, extents, counts): MPI progresses no
# communication in them, so nothing of MPI touches a pending buffer there, and --check-buffers
# need not open the watched pages around them (without protection keys that is an mprotect
# per pending buffer on the way in and out: Meep calls MPI_Wtime as often as it sends). Their
# wrappers only write the accesses noted since the last call, as every wrapper does first.
LOCAL_QUERIES = {
    "Wtime", "Wtick", "Comm_rank", "Comm_size", "Comm_remote_size", "Comm_test_inter",
    "Type_size", "Type_size_x", "Type_get_extent", "Type_get_extent_x", "Type_get_true_extent",
    "Type_get_true_extent_x", "Get_count", "Get_elements", "Get_elements_x", "Group_size",
    "Group_rank", "Initialized", "Finalized", "Query_thread", "Is_thread_main",
    "Get_processor_name", "Get_version", "Get_library_version", "Pack_size",
}


def buffers_hooks(name):
    """The statements that open the watched buffers on entering a wrapper of `name` and
    close them on leaving it (--check-buffers)."""
    short = name.removeprefix("MPI_").removesuffix("_c")
    if short in LOCAL_QUERIES:
        return ("    if (__builtin_expect(mpicheck_buffers_on, 0)) mpicheck_buffers_flush();", None)
    return (
        "    if (__builtin_expect(mpicheck_buffers_on, 0)) mpicheck_buffers_enter();",
        "    if (__builtin_expect(mpicheck_buffers_on, 0)) mpicheck_buffers_leave();",
    )


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
    proto_params = ", ".join(p.decl for p in func.c_params()) or "void"
    call_args = [p.name for p in func.c_params() if p.mode != "varargs"]
    lines = [f"#ifdef {guard}"]
    lines.append(f"{func.return_type} {pname}({proto_params});")
    lines.append(f"{func.return_type} {name}({proto_params})")
    lines.append("{")
    direct = f"{pname}({', '.join(call_args)})"
    lines.append(f"    if (__builtin_expect(mpicheck_depth != 0, 0)) return {direct};")
    lines.append("    mpicheck_depth++;")
    buffers_enter, buffers_leave = buffers_hooks(name)
    lines.append(buffers_enter)
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
    if buffers_leave:
        lines.append(buffers_leave)
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


def number_functions(funcs):
    """Takes the functions to wrap: their names (what cannot block is judged among them), and
    the ids after theirs, of the pseudo records that describe communicators and datatypes."""
    global COMM_INFO_ID, TYPE_INFO_ID
    ALL_NAMES.update(f.name for f in funcs)
    COMM_INFO_ID = len(funcs)
    TYPE_INFO_ID = len(funcs) + 1

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
    out.append("const uint16_t mpicheck_given_up_id = %d;" % (len(funcs) + PSEUDO_NAMES.index("MPICHECK_Given_up")))
    out.append("")
    for f in funcs:
        out.append(gen_c_wrapper(f))
        out.append("")
    return "\n".join(out)
