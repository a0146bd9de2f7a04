#!/usr/bin/env bash
# Disk used by a run under `mpicheck run` (which analyzes while the job runs), sampled every
# 0.5 s: the space the ranks' traces take (allocated blocks: the recorder grows a trace ahead
# of its writers, so this is what the disk loses, not the bytes written) and the space of the
# analysis's temporary file (the replays' program, an unnamed file in the output directory,
# read through the supervisor's /proc/PID/fd). Prints the peak of each, the space left when
# the job ended, the recorded calls and bytes per call. Benchmarks only.
#
#   benches/online_disk.sh                                     # varied.c, 20000 rounds, 2 ranks
#   ROUNDS=200000 benches/online_disk.sh
#   NP=4 FAMILY=openmpi benches/online_disk.sh -- lmp -in in.melt   # any program (run in $WORK)
#   MPICHECK_ARGS="--release-traces-after 16M" benches/online_disk.sh   # more mpicheck run options
#   COUNT_CALLS=0 ROUNDS=2000000 MPICHECK_ARGS=... benches/online_disk.sh  # no second run
#
# The calls are counted by `mpicheck events`, which cannot read traces whose analyzed records
# were released: then by a second run of the program with --keep-traces (without sampling),
# unless COUNT_CALLS=0. How long the job waited for the analysis, if it did, is printed too.
set -euo pipefail

ROUNDS=${ROUNDS:-20000}
FAMILY=${FAMILY:-mpich}
NP=${NP:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/target/online-disk-bench}
MPICHECK=${MPICHECK:-$ROOT/target/release/mpicheck}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$WORK"
cd "$WORK"

if [ "${1:-}" = -- ]; then
    shift
    program=("$@")
else
    "mpicc.$FAMILY" -O2 -o "$WORK/varied-$FAMILY" "$ROOT/benches/analysis/varied.c"
    program=("$WORK/varied-$FAMILY" "$ROUNDS")
fi
out=$WORK/out
rm -rf "$out"

# Allocated bytes of the traces, and of the supervisor's deleted files in the output directory.
traces_bytes() { du -B1 -c "$out"/*.mpitrace 2>/dev/null | awk 'END {print $1 + 0}'; }
spill_bytes() {
    local total=0 fd
    for fd in /proc/"$1"/fd/*; do
        case $(readlink "$fd" 2>/dev/null) in
            "$out"/*"(deleted)") total=$((total + $(stat -L -c '%b * %B' "$fd" 2>/dev/null || echo 0))) ;;
        esac
    done
    echo "$total"
}

start=$(date +%s.%N)
# shellcheck disable=SC2086 # (MPICHECK_ARGS: words)
"$MPICHECK" run --mpi "$FAMILY" -n "$NP" --out "$out" --format none ${MPICHECK_ARGS:-} -- "${program[@]}" \
    >"$WORK/stdout.txt" 2>"$WORK/stderr.txt" &
pid=$!
peak_traces=0 peak_spill=0 peak_both=0
while kill -0 "$pid" 2>/dev/null; do
    t=$(traces_bytes) s=$(spill_bytes "$pid")
    ((t > peak_traces)) && peak_traces=$t
    ((s > peak_spill)) && peak_spill=$s
    ((t + s > peak_both)) && peak_both=$((t + s))
    sleep 0.5
done
status=0
wait "$pid" || status=$?
wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
left=$(traces_bytes)
count_calls() { "$MPICHECK" events "$out" 2>/dev/null | grep -cE '^ +[0-9]+ MPI_' || true; }
calls=$(count_calls)
if [ "$calls" = 0 ] && [ "${COUNT_CALLS:-1}" != 0 ]; then
    # Released while analyzed: the same program again, its traces kept, for the count.
    rm -rf "$out"
    "$MPICHECK" run --mpi "$FAMILY" -n "$NP" --out "$out" --format none --keep-traces -- \
        "${program[@]}" >/dev/null 2>&1 || true
    calls=$(count_calls)
fi

echo "# $(date -u +%FT%TZ) $(getconf _NPROCESSORS_ONLN) cores, load $(cut -d' ' -f1-3 /proc/loadavg); ${program[*]} on $NP ranks ($FAMILY), exit $status, $wall s"
grep -h 'the job waited' "$WORK/stderr.txt" || true
printf '| calls | peak traces MiB | peak temporary file MiB | peak both MiB | left after the job MiB | bytes/call (peak both) |\n'
printf '|---:|---:|---:|---:|---:|---:|\n'
awk -v c="$calls" -v t="$peak_traces" -v s="$peak_spill" -v b="$peak_both" -v l="$left" 'BEGIN {
    m = 1048576; n = "-"; per = "-"
    if (c > 0) { n = c; per = sprintf("%.1f", b / c) }
    printf "| %s | %.1f | %.1f | %.1f | %.1f | %s |\n", n, t / m, s / m, b / m, l / m, per }'
