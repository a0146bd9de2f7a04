#!/usr/bin/env bash
# Peak and final disk of a run's traces under `mpicheck run`, and its wall time: the
# allocated blocks of the traces (what the disk loses, the recorder's space reserved ahead
# included), sampled every 0.5 s. Benchmarks only; benches/online_disk.sh also samples the
# analysis's temporary file and counts the calls (by running the program a second time when
# the traces were released).
#
#   benches/trace_peak.sh --release-traces-after 16M     # varied.c, 2,000,000 rounds, 2 ranks, MPICH
#   ROUNDS=200000 benches/trace_peak.sh --keep-traces
set -euo pipefail

ROUNDS=${ROUNDS:-2000000}
FAMILY=${FAMILY:-mpich}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/target/trace-peak-bench}
MPICHECK=${MPICHECK:-$ROOT/target/release/mpicheck}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$WORK"
"mpicc.$FAMILY" -O2 -o "$WORK/varied-$FAMILY" "$ROOT/benches/analysis/varied.c"
out=$WORK/out
rm -rf "$out"

traces_bytes() { { du -B1 -c "$out"/*.mpitrace 2>/dev/null || true; } | awk 'END {printf "%.0f\n", $1}'; }
start=$(date +%s.%N)
"$MPICHECK" run --mpi "$FAMILY" -n 2 --out "$out" --format none "$@" -- \
    "$WORK/varied-$FAMILY" "$ROUNDS" >"$WORK/stdout.txt" 2>"$WORK/stderr.txt" &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
    t=$(traces_bytes)
    if ((t > peak)); then peak=$t; fi
    sleep 0.5
done
status=0
wait "$pid" || status=$?
wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
echo "# $(date -u +%FT%TZ) $(getconf _NPROCESSORS_ONLN) cores, load $(cut -d' ' -f1-3 /proc/loadavg); varied.c $ROUNDS rounds, $FAMILY, mpicheck run $*: exit $status"
grep -h 'the job waited' "$WORK/stderr.txt" || true
awk -v p="$peak" -v l="$(traces_bytes)" -v w="$wall" 'BEGIN {
    printf "peak traces %.1f MiB, left after the job %.1f MiB, wall %s s\n", p / 1048576, l / 1048576, w }'
