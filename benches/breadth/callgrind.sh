#!/bin/bash
# Instruction counts of breadth kernels under callgrind, weft-1 against rayon-1.
#
#   cargo bench --bench breadth --no-run
#   benches/breadth/callgrind.sh OUT kernel...      (appends "kernel weft rayon ratio" to OUT)
#
# Only the instructions executed inside the kernel function are counted
# (`--toggle-collect=breadth::<side>::<kernel>`), so input generation, pool start-up and the
# idle workers of the other pools do not blur the numbers: two runs of one binary agree to
# the instruction. Across builds, expect a few percent of drift from inlining and code
# layout, and from memcpy taking another path when heap addresses move.
# Environment: BIN (default the newest target/release/deps/breadth-*), N (default 200000).
set -e
cd "$(dirname "$0")/../.."
BIN=${BIN:-$(ls -t target/release/deps/breadth-* | grep -v '\.d$' | head -1)}
out=$1
shift
ir() { # kernel side contender
  local f
  f=$(mktemp)
  WEFT_BREADTH_N=${N:-200000} WEFT_BREADTH_ONE=$1:$3 nice -n 19 valgrind --tool=callgrind \
    --collect-atstart=no --toggle-collect="breadth::$2::$1" --callgrind-out-file="$f" \
    "$BIN" >/dev/null 2>&1
  grep '^summary:' "$f" | awk '{print $2}'
  rm -f "$f"
}
for k in "$@"; do
  w=$(ir "$k" weft_side weft-1)
  r=$(ir "$k" rayon_side rayon-1)
  awk -v k="$k" -v w="$w" -v r="$r" 'BEGIN { printf "%-28s %12d %12d %6.3f\n", k, w, r, w / r }' >> "$out"
done
