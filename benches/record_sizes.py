#!/usr/bin/env python3
"""Bytes per call record by MPI function in mpicheck traces (for BENCHMARKS.md).

Usage: benches/record_sizes.py DIR...   (every *.mpitrace under each DIR)

Walks the records of each trace as the format says (crates/mpicheck-trace/src/lib.rs: a
4096-byte header, then records that open with `u32 len, u16 kind`; the function table is
the text record of subkind 1) and prints, per directory, the bytes of all records and, per
function, the number of call records, their mean length, the calls folded into them and how
many of the records are repeats (trace format 5: "Repeated calls"). Calls counted in a
repeat (format 6: "Counted runs") are "folded" into it; a cycle record (format 7: "Counted
cycles") is listed as "(cycle of N)" with the calls it counts as folded. The last line gives
the calls of all records (folded ones included) and the bytes per call.
"""
import collections
import glob
import os
import struct
import sys

HEADER_SIZE = 4096
KIND_CALL, KIND_TEXT = 1, 2
TEXT_SCHEMA = 1
FLAG_POLL = 2
FLAG_REPEAT = 8
FLAG_COUNTED = 32
KIND_CYCLE = 4
COUNT_PENDING = 1 << 63


def records(path):
    data = open(path, "rb").read()
    names = {}
    at = HEADER_SIZE
    while at + 8 <= len(data):
        length, kind, _state, flags = struct.unpack_from("<IHBB", data, at)
        if length == 0:
            break
        if kind == KIND_TEXT:
            subkind, text_len = struct.unpack_from("<II", data, at + 8)
            if subkind == TEXT_SCHEMA:
                for line in data[at + 16 : at + 16 + text_len].decode().splitlines():
                    fields = line.split()
                    if len(fields) >= 2:
                        names[int(fields[0])] = fields[1]
        elif kind == KIND_CALL:
            (func,) = struct.unpack_from("<H", data, at + 8)
            folded = struct.unpack_from("<Q", data, at + length - 16)[0] if flags & FLAG_POLL else 0
            if flags & FLAG_COUNTED:
                runs = struct.unpack_from("<Q", data, at + length - 16)[0]
                folded = (runs & ~COUNT_PENDING) + (runs >> 63)
            yield names.get(func, str(func)), length, folded, bool(flags & FLAG_REPEAT)
        elif kind == KIND_CYCLE:
            period, _thread, _span, runs = struct.unpack_from("<HHIQ", data, at + 8)
            yield f"(cycle of {period})", length, (runs & ~COUNT_PENDING) + (runs >> 63), False
        at += length
    yield None, at - HEADER_SIZE, 0, False


def main():
    for directory in sys.argv[1:]:
        stats = collections.defaultdict(lambda: [0, 0, 0, 0])
        total = 0
        for path in sorted(glob.glob(os.path.join(directory, "**", "*.mpitrace"), recursive=True)):
            for name, length, folded, repeat in records(path):
                if name is None:
                    total += length
                    continue
                entry = stats[name]
                entry[0] += 1
                entry[1] += length
                entry[2] += folded
                entry[3] += repeat
        print(f"{directory}: {total} bytes of records")
        calls = sum(c + f for name, (c, _, f, _) in stats.items() if not name.startswith("(cycle"))
        calls += sum(f for name, (_, _, f, _) in stats.items() if name.startswith("(cycle"))
        for name, (count, size, folded, repeats) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
            print(
                f"  {name:28s} records {count:9d}  bytes/record {size / count:7.1f}  folded {folded}"
                f"  repeats {repeats}"
            )
        print(f"  calls {calls}  bytes per call {total / max(calls, 1):.3f}")


if __name__ == "__main__":
    main()
