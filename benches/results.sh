#!/bin/sh
# Runs issue #21's target rows (benches/targets.rs: weft and Rayon at 1 and 2 threads against
# the best sequential code) and the breadth kernels (benches/breadth.rs: weft against Rayon),
# every contender of a row interleaved in one process, and writes the tables into
# benches/RESULTS.md between the `generated` markers (created if absent), with the date, the
# commit, the machine and the command. Everything outside the markers is kept.
#
#   benches/results.sh            full sizes, 15 rounds (about 10 minutes on 2 quiet cores)
#   benches/results.sh --quick    sizes / 10, 5 rounds, breadth on 2*10^5 items (2-3 minutes)
#
# Environment: WEFT_BENCH_ONLY=max_u64,histogram_fold_vec picks target rows and breadth
# kernels by name (see benches/targets.rs and benches/breadth/kernels.rs); WEFT_BENCH_ROUNDS
# overrides the rounds. Run it on a quiet machine: other processes' load shows up in every
# ratio, and most in the 2-thread ones.
set -eu
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1
command="benches/results.sh${1:+ $1}"

if [ "$quick" = 1 ]; then
  scale=10 rounds=${WEFT_BENCH_ROUNDS:-5} breadth_n=200000
else
  scale=1 rounds=${WEFT_BENCH_ROUNDS:-15} breadth_n=2000000
fi

# The bench binaries, as cargo reports them.
binaries=$(cargo bench --no-run --bench targets --bench breadth --message-format=json 2>/dev/null |
  grep -o '"executable":"[^"]*"' | sed 's/"executable":"//; s/"$//')
targets_bin=$(echo "$binaries" | grep '/targets-')
breadth_bin=$(echo "$binaries" | grep '/breadth-')

tsv=$(mktemp)
instructions=$(mktemp)
trap 'rm -f "$tsv" "$tsv.md" "$instructions"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
WEFT_BENCH_SCALE=$scale WEFT_BENCH_ROUNDS=$rounds WEFT_BENCH_TSV=$tsv "$targets_bin"
WEFT_BREADTH_N=$breadth_n WEFT_BENCH_ROUNDS=$rounds WEFT_BENCH_TSV=$tsv "$breadth_bin"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The kernels more than 5% behind Rayon at one thread, counted under callgrind: instructions
# do not depend on the machine's noise, nor (much) on where the linker put the loop.
behind=$(awk -F'\t' '$1 == "breadth" && $3 > 1.05 { print $2 }' "$tsv")
if [ -n "$behind" ] && command -v valgrind >/dev/null; then
  # shellcheck disable=SC2086 # one kernel name per word
  BIN=$breadth_bin benches/breadth/callgrind.sh "$instructions" $behind
fi

commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- src benches Cargo.toml ':!benches/RESULTS.md' || commit="$commit (with uncommitted changes)"
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
  echo "<!-- generated:begin -->"
  echo "## Latest run"
  echo
  echo "- date: $started; commit: $commit"
  echo "- machine: $(nproc) cores, $cpu; load average $load_before before, $load_after after"
  echo "- command: \`$command\` (sizes / $scale, $rounds interleaved rounds per contender)"
  echo
  echo "### Targets (\`benches/targets.rs\`)"
  echo
  echo "Median time / median time of the best sequential code of the same row (the fastest"
  echo "\`seq-*\` contender, named in the second column); fastest call's ratio in brackets."
  echo "\`huge-*\`: with the huge-page advice (weft: a pool with \`huge_pages(true)\`); the"
  echo "default is off. \`floor-2\`: two bare threads, no library (the machine's limit);"
  echo "\`floor-1\`: the sequential nested loop plus one thread-local read and compare per inner"
  echo "loop (the least a per-loop decision costs), and for the histogram the sequential fold"
  echo "into an accumulator whose length the loop cannot see (as a fold's leaf saw it before #21's tenth pass),"
  echo "for the tree sum the sequential recursion plus one thread-local read and test per node;"
  echo "\`chili\`: the chili heartbeat scheduler."
  echo
  echo "| row | best sequential | seq-std | weft 1 | Rayon 1 | weft 2 | Rayon 2 | huge-seq | huge-weft 1 | huge-weft 2 | floor-1 | floor-2 | chili 1 | chili 2 |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk -F'\t' '
    $1 == "targets" {
      if (!($2 in seen)) { seen[$2] = 1; order[++rows] = $2 }
      cell[$2, $3] = sprintf("%.3f (%.3f)", $6, $7)
      if ($3 ~ /^seq/ && (!($2 in best) || $4 < bestms[$2])) { best[$2] = $3; bestms[$2] = $4 }
    }
    END {
      split("seq-std weft-1 rayon-1 weft-2 rayon-2 huge-seq huge-weft-1 huge-weft-2 floor-1 floor-2 chili-1 chili-2", cols, " ")
      for (r = 1; r <= rows; r++) {
        row = order[r]
        line = sprintf("| %s | %s %.2f ms |", row, best[row], bestms[row])
        for (c = 1; c <= 12; c++) line = line " " cell[row, cols[c]] " |"
        print line
      }
    }' "$tsv"
  echo
  echo "### Breadth (\`benches/breadth.rs\`, $breadth_n items)"
  echo
  echo "weft median time / Rayon median time at 1 and 2 threads (below 1: weft faster), fastest"
  echo "samples' ratio in brackets; no sequential baseline. A sample is one untimed call, then the"
  echo "mean of as many calls as fill 4 ms. \`instructions\`: for a kernel more than 5% behind at"
  echo "1 thread, weft's instructions / Rayon's at 1 thread under callgrind (2*10^5 items, the"
  echo "kernel function only; \`benches/breadth/callgrind.sh\`): at or below 1, the time gap is"
  echo "code placement or the machine, not more work."
  echo
  awk -F'\t' '
    $1 == "breadth" {
      n++
      if ($3 <= 1.05) ok1++
      if ($5 <= 1.05) ok2++
    }
    END { printf "weft within 5%% of Rayon or faster: %d of %d kernels at 1 thread, %d at 2 threads.\n", ok1, n, ok2 }' "$tsv"
  if [ -s "$instructions" ]; then
    awk '{ n++; if ($4 > 1.02) more++ }
      END { printf "Of the %d more than 5%% behind at 1 thread, %d execute more than 2%% more instructions than Rayon.\n", n, more }' "$instructions"
  fi
  echo
  echo "| kernel | 1 thread | 2 threads | weft-2 ms | instructions |"
  echo "|---|---|---|---|---|"
  awk -F'\t' -v cg="$instructions" '
    BEGIN { while ((getline line < cg) > 0) { split(line, f, " "); ratio[f[1]] = f[4] } }
    $1 == "breadth" {
      printf "| %s | %.3f (%.3f) | %.3f (%.3f) | %.3f | %s |\n", $2, $3, $4, $5, $6, $7, ($2 in ratio) ? ratio[$2] : ""
    }' "$tsv"
  echo "<!-- generated:end -->"
} > "$tsv.md"

results=benches/RESULTS.md
[ -f "$results" ] || printf '# Bench results\n\n<!-- generated:begin -->\n<!-- generated:end -->\n' > "$results"
if ! grep -q '<!-- generated:begin -->' "$results"; then
  printf '\n<!-- generated:begin -->\n<!-- generated:end -->\n' >> "$results"
fi
awk -v md="$tsv.md" '
  /<!-- generated:begin -->/ { while ((getline line < md) > 0) print line; skip = 1; next }
  /<!-- generated:end -->/ { skip = 0; next }
  !skip { print }' "$results" > "$results.new"
mv "$results.new" "$results"
echo "wrote $results"
