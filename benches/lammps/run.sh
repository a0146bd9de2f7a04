#!/usr/bin/env bash
# Wall time of Debian's LAMMPS examples (lammps + lammps-examples, Open MPI) plainly and under
# `mpicheck run`, REPS times each, interleaved; prints every run's seconds, the medians and
# their ratio. Benchmarks only (scripts/real-apps checks the outputs and findings).
#
#   benches/lammps/run.sh          # REPS=3 RANKS=4 INPUTS="melt indent-3000" MODES=...
#
# MODES: plain (no mpicheck), online (`mpicheck run`, which analyzes while the job runs) and
# after (`mpicheck run --analyze-after`, the analysis after the job); default all three.
#
# indent-3000 is in.indent with 3,000 steps per run instead of 30,000 (as in real-apps).
# Every run keeps its files under target/lammps-bench/<input>-<mode>-<rep>/.
set -euo pipefail

REPS=${REPS:-3}
RANKS=${RANKS:-4}
INPUTS=${INPUTS:-"melt indent-3000"}
MODES=${MODES:-"plain online after"}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$ROOT/target/lammps-bench
CLI=$ROOT/target/release/mpicheck
EXAMPLES=/usr/share/lammps/examples
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
command -v lmp >/dev/null || { echo "lammps-bench: lmp not found (apt-get install lammps lammps-examples)" >&2; exit 2; }
rm -rf "$WORK"
mkdir -p "$WORK"

setup() {
    case $1 in
        melt) cp "$EXAMPLES/melt/in.melt" in.lammps ;;
        indent-3000) sed -E 's/^run([[:space:]]+)30000/run\13000/' "$EXAMPLES/indent/in.indent" >in.lammps ;;
        *) echo "lammps-bench: unknown input $1" >&2; exit 2 ;;
    esac
}
now() { date +%s.%N; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "# $(date -u +%FT%TZ) $(getconf _NPROCESSORS_ONLN) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for input in $INPUTS; do
    for rep in $(seq "$REPS"); do
        for mode in $MODES; do
            dir=$WORK/$input-$mode-$rep
            mkdir -p "$dir"
            (cd "$dir" && setup "$input")
            t0=$(now)
            case $mode in
                plain) (cd "$dir" && timeout 900 mpiexec.openmpi -n "$RANKS" lmp -in in.lammps >stdout 2>stderr) ;;
                online) (cd "$dir" && timeout 900 "$CLI" run --mpi openmpi -n "$RANKS" --out "$dir/mpicheck-out" \
                    --format none lmp -in in.lammps >stdout 2>stderr) ;;
                after) (cd "$dir" && timeout 900 "$CLI" run --analyze-after --mpi openmpi -n "$RANKS" \
                    --out "$dir/mpicheck-out" --format none lmp -in in.lammps >stdout 2>stderr) ;;
            esac
            t1=$(now)
            s=$(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }")
            echo "$input $mode $rep $s" | tee -a "$WORK/times"
        done
    done
    plain=$(awk -v i="$input" '$1 == i && $2 == "plain" {print $4}' "$WORK/times" | median)
    for mode in $MODES; do
        [ "$mode" = plain ] && continue
        t=$(awk -v i="$input" -v m="$mode" '$1 == i && $2 == m {print $4}' "$WORK/times" | median)
        echo "$input: median plain $plain s, mpicheck run ($mode) $t s, ratio $(awk "BEGIN { printf \"%.2f\", $t / $plain }")"
    done
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at end"
