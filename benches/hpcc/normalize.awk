# hpcc's output (hpccoutf.txt) without what differs between two correct runs: timings,
# performance figures and dates become '#', and lines that vary in hpcc itself are marked.
# Used by benches/hpcc/compare.sh and scripts/real-apps.
#
#   awk -f benches/hpcc/normalize.awk hpccoutf.txt
BEGIN {
    # Lines whose numbers are measurements, not results (matched on the lower-cased line).
    timing = "time|seconds|[^a-z]sec|msec|usec|gb/s|mb/s|mbyte/s|gup/s|gups|flop|tflops|gflops|per second|rate|bandwidth|latency|gbs|gbytes|clock ticks|computing:|tuning:|inverse fft:|^(star|single)stream_"
    # Lines that vary from run to run in hpcc itself, also between two plain runs:
    #   "Node selected N"        the rank for the Single* tests is drawn at random
    #   "Scaled residual: x"     StarDGEMM checks random matrices seeded from the clock
    #   "max number of ping pong pairs", "max client pings = ..."  b_eff sizes its loops by time
    #   "MPIRandomAccess[_LCG]_ExeUpdates=N"  updates done before RandomAccess's time bound
    #                            ran out (all 2^21 on an idle machine, fewer on a busy one)
    varies = "^node selected|^scaled residual:|^max number of ping pong pairs|^max client pings|^mpirandomaccess(_lcg)?_exeupdates="
}
function hash(s) { gsub(/[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?/, "#", s); gsub(/[ \t]+/, " ", s); return s }
{ low = tolower($0) }
# HPL result lines ("WR11C2R4  N  NB  P  Q  Time  Gflops"): the last two are timings.
/^W[RC][0-9][0-9][A-Z][0-9][A-Z][0-9] / { $(NF - 1) = "#"; $NF = "#"; print; next }
# PTRANS result lines ("WALL|CPU  M N MB NB P Q  time PASSED GB/s resid"). hpcc prints a
# repetition's CPU line only if its CPU time is above 0 (PTRANS/pdtransdriver.c, `if
# (ctime[0] > 0.0)`): with the CPU timer's coarse ticks a fast transpose on an idle core
# measures 0 and leaves the line out, so whether it is there varies between plain runs.
/^CPU +[0-9]/ { next }
/^WALL +[0-9]/ { $8 = "#"; $10 = "#"; print; next }
# STREAM lines ("Copy:  rate  avg  min  max"): all figures are timings.
/^(Copy|Scale|Add|Triad):/ { print $1, "#"; next }
low ~ varies { print "(varies) " hash($0); next }
low ~ timing { print hash($0); next }
{ print }
