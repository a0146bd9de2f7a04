#!/usr/bin/env python3
"""Generates mpicheck's MPI interposition wrappers from the MPI Forum's API description.

Usage: gen_wrappers.py [OUT_DIR]   (default: ../c/generated next to this script)

Writes `wrappers.c` (one recording wrapper `MPI_Xxx` per C function of the standard, including
the `_c` large-count variants, plus the function table as a string) and `fortran.c` (recording
wrappers for the Fortran entry points of every procedure with a Fortran binding: mpif.h and
`use mpi` `mpi_xxx_`, `use mpi_f08` `mpi_xxx_f08_`, MPICH's `_f08ts_` and large-count variants,
Open MPI's `_cptr_` overloads; see FLAVOURS and FORTRAN_EXCLUDED). Both are committed; a test
regenerates them and diffs, so edit the generator, never the output.

The generator's parts: mpi_functions.py (the functions and how each parameter is recorded),
c_wrappers.py (the C wrappers and the function table), fortran_wrappers.py (the Fortran entry
points), buffer_hooks.py (the buffer-checking hooks); this script writes the two files.

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
import sys

import c_wrappers
from fortran_wrappers import gen_fortran_c
from mpi_functions import HERE, load_functions


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "c", "generated")
    funcs = load_functions()
    c_wrappers.number_functions(funcs)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "wrappers.c"), "w") as fh:
        fh.write(c_wrappers.gen_wrappers_c(funcs) + "\n")
    with open(os.path.join(out_dir, "fortran.c"), "w") as fh:
        fh.write(gen_fortran_c(funcs) + "\n")


if __name__ == "__main__":
    main()
