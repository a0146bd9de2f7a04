#!/usr/bin/env bash
# Compares two hpcc runs (directories holding hpccoutf.txt, stdout.txt, stderr.txt) apart from
# timings, performance figures and dates: numbers on such lines are replaced by '#', then the
# files are diffed. Prints how many lines differ raw, which lines differ only in those
# numbers (by section), and any remaining difference (exit status 1 then).
#
#   benches/hpcc/compare.sh target/hpcc-bench/plain-1 target/hpcc-bench/preload-1
set -euo pipefail
a=$1 b=$2

normalize() { awk -f "$(dirname "$0")/normalize.awk" "$1"; }

# mpicheck run prints its report to stderr after the job ended: from its first line
# ("warning[DL002]: ...", "error[...]", "mpicheck: ...") to the end. Listed, not compared.
REPORT_START='^((error|warning)\[[A-Z]+[0-9]+\]|mpicheck: )'
strip_mpicheck() { awk -v start="$REPORT_START" '$0 ~ start { exit } { print }' "$1"; }
own_lines() { awk -v start="$REPORT_START" '$0 ~ start { own = 1 } own { print }' "$1"; }

status=0
for f in stdout.txt stderr.txt hpccoutf.txt; do
    if [ ! -e "$a/$f" ] || [ ! -e "$b/$f" ]; then
        echo "$f: missing in $a or $b"
        status=1
        continue
    fi
    own=$(own_lines "$b/$f")
    if [ -n "$own" ]; then
        echo "$f: mpicheck's report (not compared):"
        echo "$own" | sed 's/^/    /'
    fi
    raw=$(diff <(strip_mpicheck "$a/$f") <(strip_mpicheck "$b/$f") | grep -c '^<' || true)
    rest=$(diff <(strip_mpicheck "$a/$f" | normalize /dev/stdin) <(strip_mpicheck "$b/$f" | normalize /dev/stdin) || true)
    lines=$(wc -l <"$a/$f")
    if [ -z "$rest" ]; then
        echo "$f: $lines lines, $raw differ raw, identical after normalizing timings"
    else
        echo "$f: $lines lines, $raw differ raw, DIFFERENT after normalizing timings:"
        echo "$rest" | sed 's/^/    /'
        status=1
    fi
    if [ "$raw" != 0 ] && [ "${VERBOSE:-1}" = 1 ]; then
        # Which lines differed raw, counted by section (files of equal length, line by line).
        awk 'NR == FNR { a[FNR] = $0; next }
             /^Begin of .* section/ { sec = $3 }
             a[FNR] != $0 { n[sec == "" ? "-" : sec]++ }
             END { for (s in n) printf "    %s: %d\n", s, n[s] }' \
            <(strip_mpicheck "$a/$f") <(strip_mpicheck "$b/$f") | sort
    fi
done
exit $status
