#!/usr/bin/env bash
# Trace size of a tight polling loop: in `crates/mpicheck-cli/tests/programs/poll_loop.c 10`
# rank 0 calls MPI_Test in a loop for 10 s while rank 1 spins on MPI_Wtime before it sends.
# Unsuccessful identical polls fold into one record (and repeated queries like MPI_Wtime
# too), so the traces stay small however long the loop spins. Prints per MPI: the polls rank 0 made and the disk
# space each trace takes (allocated blocks: traces are sparse files). Benchmarks only.
#
#   benches/polling.sh
#   FAMILIES=openmpi benches/polling.sh
set -euo pipefail

FAMILIES=${FAMILIES:-"mpich openmpi"}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/target/polling-bench}
MPICHECK=$ROOT/target/release/mpicheck
mkdir -p "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

if [ "${NO_BUILD:-0}" != 1 ]; then
    (cd "$ROOT" && cargo build --release -q -p mpicheck-cli -p mpicheck-interpose-mpich -p mpicheck-interpose-openmpi)
fi

printf '| MPI | polls (MPI_Test calls of rank 0) | disk used by each trace, KiB |\n'
printf '|---|---:|---|\n'
for family in $FAMILIES; do
    "mpicc.$family" -O2 -o "$WORK/poll_loop-$family" "$ROOT/crates/mpicheck-cli/tests/programs/poll_loop.c"
    out=$WORK/run-$family
    rm -rf "$out"
    polls=$("$MPICHECK" run --mpi "$family" -n 2 --out "$out" --format none \
        "$WORK/poll_loop-$family" 10 2>/dev/null | awk '/^polls/ {print $2}')
    sizes=$(du -k "$out"/*.mpitrace | cut -f1 | sort -n | paste -sd, | sed 's/,/, /g')
    printf '| %s | %s | %s |\n' "$family" "${polls:-?}" "$sizes"
    rm -rf "$out"
done
