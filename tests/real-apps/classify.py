#!/usr/bin/env python3
"""Classifies the findings of one `mpicheck run` of a real application (scripts/real-apps).

Usage: classify.py KNOWN_FINDINGS OUT_DIR

Prints `TRUE/FALSE/UNKNOWN` counts on stdout and one line per finding on stderr. Exits 1
when a finding is unknown or a known false one, or when the job did not end normally (a
rank killed, mpicheck ended it, it exited non-zero); the last stderr line then says why.

KNOWN_FINDINGS holds entries separated by blank lines, `key: value` lines, `#` comments:
  code:     the check code (required)
  function: the function of the finding's first location, as report.json names it
  object:   the file name of its shared object or program (matched on the base name)
  file, line: instead of function/object, for programs built with debug info
  offset:   the call's offset in the object, or the offsets of several calls separated by
            spaces; matched only when no symbol names the function (offsets move between
            builds, so such entries fit one build)
  verdict:  true (the program really has the problem) or false (a bug of mpicheck's)
  evidence: the application's source file and line and why (required, may continue on
            indented lines)
"""
import json
import os
import sys

KEYS = {"code", "function", "object", "file", "line", "offset", "verdict", "evidence"}


def fail(message):
    print(f"classify.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_known(path):
    entries, entry, last = [], {}, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines() + [""]
    for number, raw in enumerate(lines, 1):
        if raw.lstrip().startswith("#"):
            continue
        if not raw.strip():
            if entry:
                entries.append(entry)
            entry, last = {}, None
            continue
        if raw[0] in " \t" and last:
            entry[last] += " " + raw.strip()
            continue
        key, sep, value = raw.partition(":")
        key = key.strip()
        if not sep or key not in KEYS:
            fail(f"{path}:{number}: expected `key: value` with a key of {sorted(KEYS)}")
        entry[key], last = value.strip(), key
    for e in entries:
        if "code" not in e or "evidence" not in e or e.get("verdict") not in ("true", "false"):
            fail(f"{path}: entry {e.get('code', '?')} needs code, verdict true|false and evidence")
        if not ("function" in e or "file" in e or ("object" in e and "offset" in e)):
            fail(f"{path}: entry {e['code']} needs a function, a file, or an object and offset")
    return entries


def matches(entry, finding):
    if entry["code"] != finding["code"]:
        return False
    loc = finding["locations"][0] if finding.get("locations") else {}
    if "file" in entry:
        return (os.path.basename(loc.get("file") or "") == entry["file"]
                and str(loc.get("line")) == entry.get("line", str(loc.get("line"))))
    if "function" in entry:
        if entry["function"] != loc.get("function"):
            return False
    elif loc.get("function") is not None or loc.get("offset") not in offsets(entry):
        # No symbol covers the call (a stripped program): only its offset names it.
        return False
    return "object" not in entry or os.path.basename(loc.get("object") or "") == entry["object"]


def offsets(entry):
    return [int(o, 0) for o in entry["offset"].split()]


def where(finding):
    loc = finding["locations"][0] if finding.get("locations") else {}
    if loc.get("file"):
        return f"{loc['file']}:{loc.get('line')}"
    obj = os.path.basename(loc.get("object") or "?")
    return f"{loc.get('function')} ({obj}+{hex(loc.get('offset') or 0)})"


def main():
    if len(sys.argv) != 3:
        fail("usage: classify.py KNOWN_FINDINGS OUT_DIR")
    known = read_known(sys.argv[1])
    out_dir = sys.argv[2]
    with open(os.path.join(out_dir, "report.json"), encoding="utf-8") as f:
        report = json.load(f)
    counts = {"true": 0, "false": 0, "unknown": 0}
    for finding in report["findings"]:
        entry = next((e for e in known if matches(e, finding)), None)
        kind = entry["verdict"] if entry else "unknown"
        counts[kind] += 1
        print(f"{kind:7} {finding['severity']:7} {finding['code']} {where(finding)}: "
              f"{finding['message']}", file=sys.stderr)
    print(f"{counts['true']}/{counts['false']}/{counts['unknown']}")
    problems = []
    if counts["unknown"]:
        problems.append(f"{counts['unknown']} unexplained finding(s)")
    if counts["false"]:
        problems.append(f"{counts['false']} false finding(s)")
    try:
        with open(os.path.join(out_dir, "run.json"), encoding="utf-8") as f:
            end = json.load(f).get("end") or {}
    except FileNotFoundError:
        end = {"how": "unknown (no run.json)"}
    if end.get("how") != "succeeded":
        problems.append("job ended: " + ", ".join(f"{k} {v}" for k, v in end.items()))
    run = report.get("run") or {}
    ends = run.get("trace_ends") or []
    unfinished = [f"rank {e.get('rank')} {e.get('state')}" for e in ends if e.get("state") != "finalized"]
    if unfinished or len(ends) != run.get("ranks"):
        problems.append(f"{len(ends)} of {run.get('ranks')} traces, not finalized: {', '.join(unfinished)}")
    if problems:
        print("; ".join(problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
