#!/usr/bin/env bash
# Hot path of the interposition library: ns per MPI call plainly, with the library preloaded
# but not recording (MPICHECK_OUT_DIR unset: the wrappers only), and recording, for MPICH and
# Open MPI at 1 and 2 ranks. Prints one table; the figures are medians over REPS runs, with
# plain / wrappers-only / recording runs interleaved so that machine noise hits all three.
#
#   benches/hot_path.sh                  # defaults below
#   N=2000000 REPS=3 FAMILIES=mpich RANKS=1 OPS=send benches/hot_path.sh
#   TRACE_DIR=/dev/shm/mpicheck-bench benches/hot_path.sh   # traces on tmpfs instead of disk
#   LIB_DIR=/some/dir NO_BUILD=1 benches/hot_path.sh        # libmpicheck_*.so built elsewhere
#   LIBS="old=/dir/a new=/dir/b" NO_BUILD=1 benches/hot_path.sh
#       # A/B: several builds of the library, their runs interleaved with the plain runs
#   CHECK_BUFFERS=1 OPS=send,exchange,heapexchange benches/hot_path.sh
#       # also recording with buffer checking (mpicheck run --check-buffers), interleaved;
#       # rows "buffers" use protection keys where the CPU has them, rows "mprotect" the
#       # page-protection fallback (MPICHECK_BUFFERS_MECHANISM=mprotect)
#
# Each recorded call appends ~100 bytes to the trace (4 ops x 10M calls = ~4 GB per rank and
# run): the traces are deleted after every run. Benchmarks only; the figures vary with the
# machine's load, so nothing here asserts.
set -euo pipefail

N=${N:-10000000}
REPS=${REPS:-5}
FAMILIES=${FAMILIES:-"mpich openmpi"}
RANKS=${RANKS:-"1 2"}
OPS=${OPS:-"send,recv,rank,exchange"}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$ROOT/target/hot-path
TRACE_DIR=${TRACE_DIR:-$WORK/traces}
mkdir -p "$WORK" "$TRACE_DIR"

if [ "${NO_BUILD:-0}" != 1 ]; then
    (cd "$ROOT" && cargo build --release -q -p mpicheck-interpose-mpich -p mpicheck-interpose-openmpi)
fi

declare -A MPICC=([mpich]=mpicc.mpich [openmpi]=mpicc.openmpi)
declare -A MPIEXEC=([mpich]="mpiexec.mpich" [openmpi]="mpiexec.openmpi --allow-run-as-root --oversubscribe")
LIB_DIR=${LIB_DIR:-$ROOT/target/release}
# One build unless LIBS names several; "-" names it (bash refuses an empty key).
LIBS=${LIBS:-"-=$LIB_DIR"}
declare -A LIBDIR_OF=()
VARIANTS=()
for v in $LIBS; do
    LIBDIR_OF[${v%%=*}]=${v#*=}
    VARIANTS+=("${v%%=*}")
done
MODES="plain"
for v in "${VARIANTS[@]}"; do MODES="$MODES wrappers$v recording$v"; done
if [ "${CHECK_BUFFERS:-0}" = 1 ]; then
    for v in "${VARIANTS[@]}"; do MODES="$MODES buffers$v mprotect$v"; done
fi
lib() { echo "${LIBDIR_OF[$2]}/libmpicheck_$1.so"; }

# env_args FAMILY NAME=VALUE...: mpiexec arguments that set variables in the ranks only.
env_args() {
    local fam=$1; shift
    for kv in "$@"; do
        if [ "$fam" = mpich ]; then printf -- '-genv\n%s\n%s\n' "${kv%%=*}" "${kv#*=}"
        else printf -- '-x\n%s\n' "$kv"; fi
    done
}

RAW=${RAW:-$WORK/raw.txt}
: >"$RAW"
for fam in $FAMILIES; do
    exe=$WORK/hot_path_$fam
    # (-Wno-stringop-overflow: GCC misreads MPICH's MPI_Waitall prototype with MPI_STATUSES_IGNORE)
    ${MPICC[$fam]} -O2 -Wno-stringop-overflow "$ROOT/benches/hot_path.c" -o "$exe"
    for np in $RANKS; do
        for rep in $(seq "$REPS"); do
            for mode in $MODES; do
                case $mode in
                    plain) mapfile -t extra < <(env_args "$fam") ;;
                    wrappers*) mapfile -t extra < <(env_args "$fam" "LD_PRELOAD=$(lib "$fam" "${mode#wrappers}")") ;;
                    recording*) mapfile -t extra < <(env_args "$fam" "LD_PRELOAD=$(lib "$fam" "${mode#recording}")" "MPICHECK_OUT_DIR=$TRACE_DIR") ;;
                    buffers*) mapfile -t extra < <(env_args "$fam" "LD_PRELOAD=$(lib "$fam" "${mode#buffers}")" "MPICHECK_OUT_DIR=$TRACE_DIR" "MPICHECK_CHECK_BUFFERS=1") ;;
                    mprotect*) mapfile -t extra < <(env_args "$fam" "LD_PRELOAD=$(lib "$fam" "${mode#mprotect}")" "MPICHECK_OUT_DIR=$TRACE_DIR" "MPICHECK_CHECK_BUFFERS=1" "MPICHECK_BUFFERS_MECHANISM=mprotect") ;;
                esac
                rm -f "$TRACE_DIR"/trace-*.mpitrace
                # shellcheck disable=SC2086
                env -u LD_PRELOAD -u MPICHECK_OUT_DIR ${MPIEXEC[$fam]} -n "$np" "${extra[@]}" "$exe" "$N" "$OPS" |
                    awk -v f="$fam" -v np="$np" -v m="$mode" '$1 == "op" { print f, np, $2, m, $3; print f, np, $2, m "_user", $4; print f, np, $2, m "_sys", $5 }' >>"$RAW"
                if [ "${mode#recording}" != "$mode" ]; then
                    ntraces=$(find "$TRACE_DIR" -name 'trace-*.mpitrace' | wc -l)
                    [ "$ntraces" = "$np" ] || { echo "expected $np traces, found $ntraces" >&2; exit 1; }
                    bytes=$(cat "$TRACE_DIR"/trace-*.mpitrace | wc -c)
                    echo "$fam $np - tracebytes$(echo "${mode#recording}" | tr -c -d '[:alnum:]_.-') $bytes" >>"$RAW"
                    rm -f "$TRACE_DIR"/trace-*.mpitrace
                fi
            done
            echo "# $fam -n $np rep $rep/$REPS done" >&2
        done
    done
done

BUFFER_ROWS=()
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v f="$1" -v np="$2" -v op="$3" -v m="$4" '$1 == f && $2 == np && $3 == op && $4 == m { print $5 }' "$RAW"; }

echo
echo "mpicheck hot path: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
echo "N=$N calls per op and run, median of REPS=$REPS runs; traces in $TRACE_DIR ($(df -T "$TRACE_DIR" | awk 'NR == 2 { print $2 }'))"
echo "ns/call: plain | library preloaded, not recording | recording; added = recording - plain (min..max over the runs);"
echo "user, kernel: CPU time added per call in rank 0's calling thread (recording - plain, medians)"
printf '%-8s %-8s %5s %-15s %8s %9s %10s %8s %17s %6s %6s\n' family library ranks call plain wrappers recording added "added min..max" user kernel
for fam in $FAMILIES; do
    for np in $RANKS; do
        for op in ${OPS//,/ }; do
            for v in "${VARIANTS[@]}"; do
                p=$(col "$fam" "$np" "$op" plain | median)
                w=$(col "$fam" "$np" "$op" "wrappers$v" | median)
                r=$(col "$fam" "$np" "$op" "recording$v" | median)
                # added per run (plain and recording of the same repetition), then min..max
                range=$(paste <(col "$fam" "$np" "$op" plain) <(col "$fam" "$np" "$op" "recording$v") |
                    awk '{ d = $2 - $1; if (NR == 1 || d < lo) lo = d; if (NR == 1 || d > hi) hi = d } END { printf "%.1f..%.1f", lo, hi }')
                du=$(awk -v a="$(col "$fam" "$np" "$op" "recording${v}_user" | median)" -v b="$(col "$fam" "$np" "$op" plain_user | median)" 'BEGIN { print a - b }')
                ds=$(awk -v a="$(col "$fam" "$np" "$op" "recording${v}_sys" | median)" -v b="$(col "$fam" "$np" "$op" plain_sys | median)" 'BEGIN { print a - b }')
                case $op in send) name="MPI_Send";; recv) name="MPI_Recv";; rank) name="MPI_Comm_rank";; exchange) name="exchange";; *) name=$op;; esac
                if [ "${CHECK_BUFFERS:-0}" = 1 ]; then
                    for kind in buffers mprotect; do
                        b=$(col "$fam" "$np" "$op" "$kind$v" | median)
                        brange=$(paste <(col "$fam" "$np" "$op" "recording$v") <(col "$fam" "$np" "$op" "$kind$v") |
                            awk '{ d = $2 - $1; if (NR == 1 || d < lo) lo = d; if (NR == 1 || d > hi) hi = d } END { printf "%.1f..%.1f", lo, hi }')
                        bu=$(awk -v a="$(col "$fam" "$np" "$op" "$kind${v}_user" | median)" -v b="$(col "$fam" "$np" "$op" "recording${v}_user" | median)" 'BEGIN { print a - b }')
                        bs=$(awk -v a="$(col "$fam" "$np" "$op" "$kind${v}_sys" | median)" -v b="$(col "$fam" "$np" "$op" "recording${v}_sys" | median)" 'BEGIN { print a - b }')
                        BUFFER_ROWS+=("$(printf '%-8s %-8s %-8s %5s %-15s %10.1f %10.1f %8.1f %17s %6.1f %6.1f' "$fam" "${v:--}" "$kind" "$np" "$name" "$r" "$b" \
                            "$(awk -v r="$r" -v b="$b" 'BEGIN { print b - r }')" "$brange" "$bu" "$bs")")
                    done
                fi
                printf '%-8s %-8s %5s %-15s %8.1f %9.1f %10.1f %8.1f %17s %6.1f %6.1f\n' "$fam" "${v:--}" "$np" "$name" "$p" "$w" "$r" \
                    "$(awk -v r="$r" -v p="$p" 'BEGIN { print r - p }')" "$range" "$du" "$ds"
            done
        done
    done
done
if [ "${CHECK_BUFFERS:-0}" = 1 ]; then
    echo
    echo "buffer checking (MPICHECK_CHECK_BUFFERS=1) on top of recording: ns/call; added = buffers - recording"
    printf '%-8s %-8s %-8s %5s %-15s %10s %10s %8s %17s %6s %6s\n' family library mode ranks call recording buffers added "added min..max" user kernel
    printf '%s\n' "${BUFFER_ROWS[@]}"
fi
for fam in $FAMILIES; do
    for np in $RANKS; do
        for v in "${VARIANTS[@]}"; do
            b=$(awk -v f="$fam" -v np="$np" -v k="tracebytes$v" '$1 == f && $2 == np && $4 == k { print $5 }' "$RAW" | median)
            nops=$(echo "$OPS" | tr ',' '\n' | wc -l)
            # per op: N timed calls + N/100+1 warm-up calls
            awk -v f="$fam" -v v="${v:--}" -v b="$b" -v np="$np" -v n="$N" -v k="$nops" 'BEGIN {
                printf "%s %s -n %s: trace bytes per rank and run %.0f (%.1f bytes per recorded call)\n", f, v, np, b / np, b / np / (k * (n + int(n / 100) + 1)) }'
        done
    done
done
