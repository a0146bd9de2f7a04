#!/usr/bin/env bash
# Interleaved before/after comparison of `mpicheck analyze` on the runs `benches/analysis.sh`
# records (benches/analysis/varied.c at 2 ranks): for each ROUNDS value the run is recorded
# once (unless already in $WORK), then BEFORE and AFTER analyze it alternately REPS times.
# Prints per size and binary: calls, median wall and user time, median and spread of the peak
# RSS (GNU time), bytes per call and calls per second of user time. Benchmarks only.
#
#   BEFORE=/tmp/mpicheck-main SIZES="2000 20000 200000" benches/analysis_compare.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZES=${SIZES:-"2000 20000 200000"}
REPS=${REPS:-3}
FAMILY=${FAMILY:-mpich}
WORK=${WORK:-$ROOT/target/analysis-bench}
AFTER=${AFTER:-$ROOT/target/release/mpicheck}
BEFORE=${BEFORE:?BEFORE=path of the mpicheck binary to compare with}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$WORK"
"mpicc.$FAMILY" -O2 -o "$WORK/varied-$FAMILY" "$ROOT/benches/analysis/varied.c"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
spread() { sort -n | awk 'NR==1 {lo=$1} {hi=$1} END {print hi-lo}'; }

printf '| rounds | calls | binary | wall s | user s | peak RSS MiB (spread) | bytes/call | calls/s (user) |\n'
printf '|---:|---:|---|---:|---:|---:|---:|---:|\n'
for rounds in $SIZES; do
    out=$WORK/run-$rounds
    if [ ! -d "$out" ]; then
        timeout 3600 "$AFTER" run --mpi "$FAMILY" -n 2 --out "$out" --format none \
            "$WORK/varied-$FAMILY" "$rounds" >/dev/null 2>&1 || true
    fi
    calls=$("$AFTER" events "$out" 2>/dev/null | grep -cE '^ +[0-9]+ MPI_' || true)
    declare -A wall=() user=() rss=()
    for _ in $(seq "$REPS"); do
        for which in before after; do
            bin=$BEFORE
            [ "$which" = after ] && bin=$AFTER
            /usr/bin/time -f '%e %U %M' -o "$WORK/time" "$bin" analyze --format none "$out" >/dev/null 2>&1 || true
            read -r t u m <"$WORK/time"
            wall[$which]+="$t " user[$which]+="$u " rss[$which]+="$m "
        done
    done
    for which in before after; do
        t=$(printf '%s\n' ${wall[$which]} | median)
        u=$(printf '%s\n' ${user[$which]} | median)
        m=$(printf '%s\n' ${rss[$which]} | median)
        s=$(printf '%s\n' ${rss[$which]} | spread)
        awk -v r="$rounds" -v c="$calls" -v w="$which" -v t="$t" -v u="$u" -v m="$m" -v s="$s" 'BEGIN {
            printf "| %d | %d | %s | %.2f | %.2f | %.0f (%.0f) | %.0f | %.0f |\n", r, c, w, t, u, m / 1024, s / 1024, m * 1024 / (c > 0 ? c : 1), c / (u > 0 ? u : 1) }'
    done
    unset wall user rss
done
