#!/usr/bin/env python3
"""Counts the call records of mpicheck traces (format versions 1 and 2: frames and function ids only, see crates/mpicheck-trace):
per trace its size and number of recorded calls, then the most frequent functions over all.

    trace_stats.py DIR_OR_TRACE...
"""
import collections
import glob
import os
import struct
import sys

HEADER_SIZE, CALL, TEXT, SCHEMA = 4096, 1, 2, 1


def stats(path):
    data = open(path, "rb").read()
    assert data[:8] == b"MPICHKTR", f"{path}: not a trace"
    rank = struct.unpack_from("<i", data, 24)[0]
    end = min(struct.unpack_from("<Q", data, 40)[0], len(data))
    names, calls, at = {}, collections.Counter(), HEADER_SIZE
    while at + 8 <= end:
        length, kind = struct.unpack_from("<IH", data, at)
        if length == 0:
            break
        if kind == TEXT and struct.unpack_from("<I", data, at + 8)[0] == SCHEMA:
            n = struct.unpack_from("<I", data, at + 12)[0]
            for line in data[at + 16 : at + 16 + n].decode().splitlines():
                fields = line.split()
                if len(fields) >= 2:
                    names[int(fields[0])] = fields[1]
        elif kind == CALL:
            calls[struct.unpack_from("<H", data, at + 8)[0]] += 1
        at += length
    return rank, len(data), collections.Counter({names.get(k, str(k)): v for k, v in calls.items()})


def main():
    paths = []
    for arg in sys.argv[1:]:
        paths += sorted(glob.glob(os.path.join(arg, "*.mpitrace"))) if os.path.isdir(arg) else [arg]
    total, total_bytes, total_calls = collections.Counter(), 0, 0
    for path in paths:
        rank, size, calls = stats(path)
        n = sum(calls.values())
        total += calls
        total_bytes += size
        total_calls += n
        print(f"rank {rank}: {size} bytes, {n} calls ({size / max(n, 1):.0f} bytes per call)  {os.path.basename(path)}")
    print(f"all: {len(paths)} traces, {total_bytes} bytes, {total_calls} calls")
    print("most frequent: " + ", ".join(f"{name} {count}" for name, count in total.most_common(8)))


if __name__ == "__main__":
    main()
