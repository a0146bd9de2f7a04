#!/usr/bin/env bash
# hpcc (Debian's package, linked against Open MPI) on 4 ranks: plainly, with the interposition
# library preloaded by hand, and under `mpicheck run` (when target/release/mpicheck exists),
# REPS times each, interleaved. Prints wall times, trace sizes and recorded calls, and checks
# with compare.sh that hpcc's output is the same apart from timings.
#
#   benches/hpcc/run.sh            # REPS=3 MODES="plain preload cli" RANKS=4
#
# Every run gets its own directory under target/hpcc-bench/<mode>-<rep>/ with hpccinf.txt,
# hpccoutf.txt, stdout.txt, stderr.txt and (preload) traces/ or (cli) mpicheck-out/.
set -euo pipefail

REPS=${REPS:-3}
RANKS=${RANKS:-4}
MODES=${MODES:-"plain preload cli"}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$ROOT/target/hpcc-bench
LIB=$ROOT/target/release/libmpicheck_openmpi.so
CLI=$ROOT/target/release/mpicheck
MPIEXEC=(mpiexec.openmpi --allow-run-as-root --oversubscribe -n "$RANKS")

if [[ " $MODES " == *" cli "* ]] && ! "$CLI" run --help >/dev/null 2>&1; then
    echo "# $CLI run is not available: skipping the cli mode" >&2
    MODES=${MODES//cli/}
fi
rm -rf "$WORK"
mkdir -p "$WORK"

for rep in $(seq "$REPS"); do
    for mode in $MODES; do
        dir=$WORK/$mode-$rep
        mkdir -p "$dir"
        cp "$HERE/hpccinf.txt" "$dir/"
        case $mode in
            plain) cmd=("${MPIEXEC[@]}" hpcc) ;;
            preload) mkdir -p "$dir/traces"
                cmd=("${MPIEXEC[@]}" env "LD_PRELOAD=$LIB" "MPICHECK_OUT_DIR=$dir/traces" hpcc) ;;
            cli) cmd=("$CLI" run -n "$RANKS" -- hpcc) ;;
        esac
        start=$(date +%s.%N)
        status=0
        (cd "$dir" && env -u LD_PRELOAD -u MPICHECK_OUT_DIR "${cmd[@]}" >stdout.txt 2>stderr.txt) || status=$?
        end=$(date +%s.%N)
        wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
        echo "$mode $rep $wall $status" >>"$WORK/times.txt"
        echo "# $mode run $rep: ${wall} s, exit status $status: ${cmd[*]}" >&2
    done
done

echo
echo "hpcc -n $RANKS ($(nproc) cores), wall seconds per run (exit status), median:"
for mode in $MODES; do
    runs=$(awk -v m="$mode" '$1 == m { printf "%s (%s)  ", $3, $4 }' "$WORK/times.txt")
    med=$(awk -v m="$mode" '$1 == m { print $3 }' "$WORK/times.txt" | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    printf '  %-8s %s median %s\n' "$mode" "$runs" "$med"
done

for mode in $MODES; do
    case $mode in
        preload) traces=$WORK/preload-1/traces ;;
        cli) traces=$WORK/cli-1/mpicheck-out ;;
        *) continue ;;
    esac
    echo
    echo "traces of $mode run 1 ($traces):"
    python3 "$HERE/trace_stats.py" "$traces"
done

echo
for mode in $MODES; do
    for rep in $(seq "$REPS"); do
        [ "$mode-$rep" = plain-1 ] && continue
        echo "== compare plain-1 with $mode-$rep"
        "$HERE/compare.sh" "$WORK/plain-1" "$WORK/$mode-$rep" || true
    done
done
