#!/usr/bin/env bash
# Cost of thread tracking (c/threads.c: libgomp and pthread interposition, MPICHECK_Sync
# records) for a single-threaded program: ns per MPI call of benches/hot_path.c (MPI_Send and
# MPI_Recv to MPI_PROC_NULL), recording with thread tracking off (MPICHECK_THREADS=0) and on
# (the default), runs interleaved so that machine noise hits both; medians over REPS runs.
#
#   benches/threads_cost.sh
#   N=2000000 REPS=7 FAMILIES=mpich RANKS=1 benches/threads_cost.sh
#
# Benchmark only: the figures vary with the machine's load, nothing here asserts.
set -euo pipefail

N=${N:-2000000}
REPS=${REPS:-5}
FAMILIES=${FAMILIES:-"mpich openmpi"}
RANKS=${RANKS:-"1 2"}
OPS=${OPS:-"send,recv"}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$ROOT/target/threads-cost
TRACE_DIR=${TRACE_DIR:-$WORK/traces}
mkdir -p "$WORK" "$TRACE_DIR"

if [ "${NO_BUILD:-0}" != 1 ]; then
    (cd "$ROOT" && cargo build --release -q -p mpicheck-interpose-mpich -p mpicheck-interpose-openmpi)
fi

declare -A MPICC=([mpich]=mpicc.mpich [openmpi]=mpicc.openmpi)
declare -A MPIEXEC=([mpich]="mpiexec.mpich" [openmpi]="mpiexec.openmpi --allow-run-as-root --oversubscribe")
declare -A LIB=([mpich]=$ROOT/target/release/libmpicheck_mpich.so [openmpi]=$ROOT/target/release/libmpicheck_openmpi.so)

env_args() {
    local fam=$1; shift
    for kv in "$@"; do
        if [ "$fam" = mpich ]; then printf -- '-genv\n%s\n%s\n' "${kv%%=*}" "${kv#*=}"
        else printf -- '-x\n%s\n' "$kv"; fi
    done
}

RAW=$WORK/raw.txt
: >"$RAW"
for fam in $FAMILIES; do
    exe=$WORK/hot_path_$fam
    ${MPICC[$fam]} -O2 "$ROOT/benches/hot_path.c" -o "$exe"
    for np in $RANKS; do
        for rep in $(seq "$REPS"); do
            for mode in threads-off threads-on; do
                threads=1
                [ "$mode" = threads-off ] && threads=0
                mapfile -t extra < <(env_args "$fam" "LD_PRELOAD=${LIB[$fam]}" "MPICHECK_OUT_DIR=$TRACE_DIR" "MPICHECK_THREADS=$threads")
                rm -f "$TRACE_DIR"/trace-*.mpitrace
                # shellcheck disable=SC2086
                env -u LD_PRELOAD -u MPICHECK_OUT_DIR ${MPIEXEC[$fam]} -n "$np" "${extra[@]}" "$exe" "$N" "$OPS" |
                    awk -v f="$fam" -v np="$np" -v m="$mode" '$1 == "op" { print f, np, $2, m, $3 }' >>"$RAW"
                rm -f "$TRACE_DIR"/trace-*.mpitrace
            done
            echo "# $fam -n $np rep $rep/$REPS done" >&2
        done
    done
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v f="$1" -v np="$2" -v op="$3" -v m="$4" '$1 == f && $2 == np && $3 == op && $4 == m { print $5 }' "$RAW"; }

echo
echo "thread tracking cost: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "N=$N calls per op and run, median of REPS=$REPS runs, ns/call while recording"
printf '%-8s %5s %-6s %11s %10s %8s %16s %16s\n' family ranks call threads-off threads-on added "off min..max" "on min..max"
for fam in $FAMILIES; do
    for np in $RANKS; do
        for op in ${OPS//,/ }; do
            off=$(col "$fam" "$np" "$op" threads-off | median)
            on=$(col "$fam" "$np" "$op" threads-on | median)
            range() { col "$fam" "$np" "$op" "$1" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f..%.1f", lo, hi }'; }
            printf '%-8s %5s %-6s %11.1f %10.1f %8.1f %16s %16s\n' "$fam" "$np" "$op" "$off" "$on" "$(echo "$on - $off" | bc -l)" "$(range threads-off)" "$(range threads-on)"
        done
    done
done
