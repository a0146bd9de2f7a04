#!/usr/bin/env bash
# Cost of the analysis as the run grows: `benches/analysis/varied.c` (point-to-point with
# changing tags, wildcard receives, collectives, communicators and datatypes created and
# freed) recorded at 2 ranks for each ROUNDS value, then `mpicheck analyze` of the saved run
# REPS times. Prints, per size: recorded calls, trace bytes, and the analysis's median wall
# time, peak resident memory (GNU time's max RSS) and bytes per call. Benchmarks only.
#
#   benches/analysis.sh                          # defaults below
#   SIZES="100000 1000000" REPS=1 FAMILY=openmpi benches/analysis.sh
set -euo pipefail

SIZES=${SIZES:-"10000 100000 1000000"}
REPS=${REPS:-3}
FAMILY=${FAMILY:-mpich}
NP=${NP:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/target/analysis-bench}
MPICHECK=$ROOT/target/release/mpicheck
mkdir -p "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

if [ "${NO_BUILD:-0}" != 1 ]; then
    (cd "$ROOT" && cargo build --release -q -p mpicheck-cli -p mpicheck-interpose-mpich -p mpicheck-interpose-openmpi)
fi
"mpicc.$FAMILY" -O2 -o "$WORK/varied-$FAMILY" "$ROOT/benches/analysis/varied.c"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

printf '| rounds | calls | trace MiB | analyze s (median of %s) | peak RSS MiB | bytes/call |\n' "$REPS"
printf '|---:|---:|---:|---:|---:|---:|\n'
for rounds in $SIZES; do
    out=$WORK/run-$FAMILY-$rounds
    rm -rf "$out"
    "$MPICHECK" run --mpi "$FAMILY" -n "$NP" --out "$out" --format none \
        "$WORK/varied-$FAMILY" "$rounds" >/dev/null 2>&1 || true
    calls=$("$MPICHECK" events "$out" 2>/dev/null | grep -cE '^ +[0-9]+ MPI_' || true)
    bytes=$(( $(du -sk "$out" | cut -f1) * 1024 ))
    times=() rss=()
    for _ in $(seq "$REPS"); do
        /usr/bin/time -f '%e %M' -o "$WORK/time" "$MPICHECK" analyze --format none "$out" >/dev/null 2>&1 || true
        read -r t m <"$WORK/time"
        times+=("$t") rss+=("$m")
    done
    t=$(printf '%s\n' "${times[@]}" | median)
    m=$(printf '%s\n' "${rss[@]}" | median)
    awk -v r="$rounds" -v c="$calls" -v b="$bytes" -v t="$t" -v m="$m" 'BEGIN {
        printf "| %d | %d | %.1f | %.2f | %.0f | %.0f |\n", r, c, b / 1048576, t, m / 1024, m * 1024 / (c > 0 ? c : 1) }'
    rm -rf "$out"
done
