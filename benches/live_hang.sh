#!/usr/bin/env bash
# A job that hangs after many calls: benches/analysis/long_hang.c (ROUNDS rounds of a ring
# Sendrecv and an Allreduce, then a head-to-head MPI_Recv) under `mpicheck run` with a 5 s
# deadlock timeout. Samples the supervisor's peak resident memory (VmHWM of the mpicheck
# process, not of the ranks, whose mapped traces count in theirs) and its CPU time, and
# prints them with the time from the start of the hang check to its verdict and the whole
# `mpicheck run`'s. ANALYSIS=after (the default) runs with --analyze-after: the check reads
# the traces from their start; ANALYSIS=online lets the analysis follow the job, which the
# check then ends at the stall. Benchmarks only.
#
#   benches/live_hang.sh                        # ROUNDS=1000000, MPICH, 2 ranks
#   MPICHECK=/tmp/old/mpicheck ROUNDS=100000 benches/live_hang.sh
#   ANALYSIS=online benches/live_hang.sh
#   RUN_AS="setpriv --reuid=65534 --regid=65534 --clear-groups" WORK=/tmp/lh ANALYSIS=online \
#       benches/live_hang.sh    # as a user without CAP_SYS_NICE (WORK and MPICHECK reachable)
set -euo pipefail

ROUNDS=${ROUNDS:-1000000}
FAMILY=${FAMILY:-mpich}
ANALYSIS=${ANALYSIS:-after}
case $ANALYSIS in
after) follow=--analyze-after ;;
online) follow= ;;
*) echo "ANALYSIS is after or online, not $ANALYSIS" >&2; exit 2 ;;
esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/target/live-hang-bench}
MPICHECK=${MPICHECK:-$ROOT/target/release/mpicheck}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$WORK"
"mpicc.$FAMILY" -O2 -o "$WORK/long_hang-$FAMILY" "$ROOT/benches/analysis/long_hang.c"
out=$WORK/out
rm -rf "$out"

start=$(date +%s.%N)
${RUN_AS:-} "$MPICHECK" run $follow --mpi "$FAMILY" -n 2 --out "$out" --deadlock-timeout 5 --format none \
    "$WORK/long_hang-$FAMILY" "$ROUNDS" >/dev/null 2>"$WORK/stderr.txt" &
pid=$!
hwm=0
ticks=0
while kill -0 "$pid" 2>/dev/null; do
    kib=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status 2>/dev/null || echo 0)
    ((${kib:-0} > hwm)) && hwm=$kib
    # The supervisor's own CPU time (its threads, not the job's processes), in clock ticks.
    t=$(awk '{print $14 + $15}' /proc/"$pid"/stat 2>/dev/null || echo 0)
    ((${t:-0} > ticks)) && ticks=$t
    sleep 0.5
done
wait "$pid" || true
total=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')
# "no rank has made progress for N s" is said once the check has judged: N - 5 s is the check.
judged=$(grep -o 'no rank has made progress for [0-9]* s' "$WORK/stderr.txt" | grep -o '[0-9]\+' | head -1)
calls=$("$MPICHECK" events "$out" 2>/dev/null | grep -cE '^ +[0-9]+ MPI_' || true)
echo "# $(date -u +%FT%TZ) $(getconf _NPROCESSORS_ONLN) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $MPICHECK, ANALYSIS=$ANALYSIS"
printf '| calls | supervisor peak RSS MiB | supervisor CPU s | hang check s | mpicheck run s | finding |\n|---:|---:|---:|---:|---:|---|\n'
finding=$(grep -o '"DL00[0-9]"' "$out/report.json" 2>/dev/null | head -1 || true)
awk -v c="$calls" -v h="$hwm" -v cpu="$ticks" -v hz="$(getconf CLK_TCK)" -v j="${judged:-?}" \
    -v t="$total" -v f="${finding:-none}" \
    'BEGIN {printf "| %d | %.1f | %.1f | %s | %.0f | %s |\n", c, h / 1024, cpu / hz, (j == "?" ? "?" : j - 5), t, f}'
