#!/usr/bin/env bash
# Cost of thread tracking (c/threads.c: libgomp and pthread interposition, MPICHECK_Sync
# records) for a single-threaded program: ns per MPI call of benches/hot_path.c (MPI_Send and
# MPI_Recv to MPI_PROC_NULL), recording with thread tracking off (MPICHECK_THREADS=0) and on
# (the default), runs interleaved so that machine noise hits both; medians over REPS runs.
#
#   benches/threads_cost.sh
#   N=2000000 REPS=7 FAMILIES=mpich RANKS=1 benches/threads_cost.sh
#
# Then benches/sync_record.c (no MPI, one process): ns per pthread_mutex_lock/unlock pair of
# the application plainly, preloaded with tracking off (forwarding only), preloaded and
# recording in a single-threaded program (locks are not recorded before a thread exists),
# and recording after a thread was started (two MPICHECK_Sync records per pair).
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

SYNC_N=${SYNC_N:-2000000}
sync_exe=$WORK/sync_record
gcc -O2 -pthread "$ROOT/benches/sync_record.c" -o "$sync_exe"
SRAW=$WORK/sync_raw.txt
: >"$SRAW"
lib=${LIB[mpich]}
for rep in $(seq "$REPS"); do
    echo "plain $("$sync_exe" "$SYNC_N")" >>"$SRAW"
    echo "forwarding $(LD_PRELOAD=$lib MPICHECK_OUT_DIR=$TRACE_DIR MPICHECK_THREADS=0 "$sync_exe" "$SYNC_N")" >>"$SRAW"
    echo "single-threaded $(LD_PRELOAD=$lib MPICHECK_OUT_DIR=$TRACE_DIR "$sync_exe" "$SYNC_N")" >>"$SRAW"
    echo "recording $(LD_PRELOAD=$lib MPICHECK_OUT_DIR=$TRACE_DIR "$sync_exe" "$SYNC_N" threaded)" >>"$SRAW"
    rm -f "$TRACE_DIR"/trace-*.mpitrace
done
echo
echo "application lock/unlock pair, ns (median of $REPS, N=$SYNC_N): plain | preloaded, tracking off | tracking on, no thread started | tracking on, recording"
for mode in plain forwarding single-threaded recording; do
    printf '%-16s %8.1f\n' "$mode" "$(awk -v m="$mode" '$1 == m { print $3 }' "$SRAW" | median)"
done

# Instructions per recorded call, which machine noise does not change (valgrind's callgrind
# counts them; one process, no mpiexec): the difference of two runs of N and 2N iterations
# divided by the extra calls, with thread tracking off and on.
if command -v valgrind >/dev/null && [ "${COUNT:-1}" = 1 ]; then
    CN=${COUNT_N:-100000}
    echo
    echo "instructions per recorded MPI call (callgrind, MPI_Send+MPI_Recv to MPI_PROC_NULL, (Ir(2N) - Ir(N)) / 2N, N=$CN)"
    printf '%-8s %11s %10s\n' family threads-off threads-on
    for fam in $FAMILIES; do
        exe=$WORK/hot_path_$fam
        per_call() {
            local ir=()
            for n in "$CN" $((2 * CN)); do
                ir+=("$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPICHECK_OUT_DIR=$TRACE_DIR MPICHECK_THREADS=$1 LD_PRELOAD=${LIB[$fam]} \
                    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$exe" "$n" send,recv 2>&1 |
                    awk '/Collected/ { print $NF }')")
                rm -f "$TRACE_DIR"/trace-*.mpitrace
            done
            echo "(${ir[1]} - ${ir[0]}) / (2 * $CN)" | bc -l
        }
        printf '%-8s %11.1f %10.1f\n' "$fam" "$(per_call 0)" "$(per_call 1)"
    done
fi
