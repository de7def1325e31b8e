#!/bin/sh
# Runs issue #21's target rows (benches/targets.rs: weft and Rayon at 1 and 2 threads against
# the best sequential code) and the breadth kernels (benches/breadth.rs: weft against Rayon),
# every contender of a row interleaved in one process, and writes the tables into
# benches/RESULTS.md between the `generated` markers (created if absent), with the date, the
# commit, the machine and the command. Everything outside the markers is kept.
#
#   benches/results.sh                full sizes, 15 rounds (about 10 minutes on 2 quiet cores)
#   benches/results.sh --quick        sizes / 10, 5 rounds, breadth on 2*10^5 items (2-3 minutes)
#   benches/results.sh --layouts K    K builds, each with its functions in another order
#
# Layouts: where the linker puts a loop moves its speed by up to 1.5x with the same
# instructions (a hot loop that crosses a 32- or 64-byte boundary, or not; README, "Code
# placement"), and a user's build draws its own placement. `--layouts K` links the two
# bench binaries K times with lld's `--shuffle-sections` (every function of the binary,
# weft's, Rayon's and the sequential code's alike, in another order, so at another offset;
# the same seed gives the same layout), runs each, and reports for every ratio the median
# over the layouts of each layout's median, with the lowest and highest beside it. Only the
# bench crate is relinked (`cargo rustc -- -C link-arg=...`): no library is rebuilt, and the
# code is the same in every layout. Rounds default to max(5, 15 / K) per layout. Needs the
# LLD linker (rustc's default on x86_64 Linux since 1.90).
#
# Environment: WEFT_BENCH_ONLY=max_u64,histogram_fold_vec picks target rows and breadth
# kernels by name (see benches/targets.rs and benches/breadth/kernels.rs); WEFT_BENCH_ROUNDS
# overrides the rounds; WEFT_BENCH_FIRST_SEED=S makes the layouts' seeds S..S+K-1 (default
# 1), so that a second run can draw other layouts. Run it on a quiet machine: other
# processes' load shows up in every ratio, and most in the 2-thread ones.
set -eu
cd "$(dirname "$0")/.."
command="benches/results.sh${*:+ $*}"
quick=0
layouts=1
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --layouts)
      layouts=${2:-}
      case $layouts in '' | *[!0-9]* | 0)
        echo "--layouts takes a number of layouts, 1 or more" >&2
        exit 2
        ;;
      esac
      shift
      ;;
    *)
      echo "usage: benches/results.sh [--quick] [--layouts K]" >&2
      exit 2
      ;;
  esac
  shift
done

if [ "$quick" = 1 ]; then
  scale=10 rounds=${WEFT_BENCH_ROUNDS:-5} breadth_n=200000
else
  per_layout=$(((15 + layouts - 1) / layouts))
  [ "$per_layout" -lt 5 ] && per_layout=5
  scale=1 rounds=${WEFT_BENCH_ROUNDS:-$per_layout} breadth_n=2000000
fi

work=$(mktemp -d)
tsv=$work/merged.tsv
instructions=$work/instructions
trap 'rm -rf "$work"' EXIT

# build BENCH SEED: builds one bench binary (SEED 0: as `cargo bench` links it; otherwise
# with its input sections shuffled by that seed), copies it into $work and prints the copy.
build() {
  if [ "$2" = 0 ]; then
    cargo bench --no-run --bench "$1" --message-format=json
  else
    cargo rustc --profile bench --bench "$1" --message-format=json -- \
      -C "link-arg=-Wl,--shuffle-sections=.text.*=$2"
  fi 2>"$work/build.log" | grep -o '"executable":"[^"]*"' | sed 's/"executable":"//; s/"$//' >"$work/exe" || true
  if [ ! -s "$work/exe" ]; then
    cat "$work/build.log" >&2
    echo "building the $1 bench (layout $2) failed" >&2
    exit 1
  fi
  cp "$(tail -n 1 "$work/exe")" "$work/$1-$2"
  echo "$work/$1-$2"
}
if [ "$layouts" = 1 ]; then
  seeds=0
else
  first_seed=${WEFT_BENCH_FIRST_SEED:-1}
  seeds=$(seq "$first_seed" $((first_seed + layouts - 1)))
fi
for seed in $seeds; do
  build targets "$seed" >/dev/null
  build breadth "$seed" >/dev/null
done
breadth_bin=$work/breadth-$(echo "$seeds" | head -n 1)

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
for seed in $seeds; do
  [ "$layouts" = 1 ] || echo "layout with seed $seed ($layouts in all)"
  WEFT_BENCH_SCALE=$scale WEFT_BENCH_ROUNDS=$rounds WEFT_BENCH_TSV=$work/run-$seed.tsv \
    "$work/targets-$seed"
  WEFT_BREADTH_N=$breadth_n WEFT_BENCH_ROUNDS=$rounds WEFT_BENCH_TSV=$work/run-$seed.tsv \
    "$work/breadth-$seed"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# One line per target contender and per breadth kernel, each figure the median over the
# layouts, then the lowest and highest median ratio over the layouts (targets: the ratio;
# breadth: the 1- and 2-thread ratios). With one layout the spread is that layout's figure.
awk -F'\t' '
  function sorted(key, f, m, a,   i, j, t) {
    for (i = 1; i <= m; i++) a[i] = values[key, f, i]
    for (i = 2; i <= m; i++)
      for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  }
  function median(key, f,   a, m) {
    m = runs[key]; sorted(key, f, m, a)
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  function lowest(key, f,   a) { sorted(key, f, runs[key], a); return a[1] }
  function highest(key, f,   a) { sorted(key, f, runs[key], a); return a[runs[key]] }
  {
    key = $1 SUBSEP $2 SUBSEP ($1 == "targets" ? $3 : "")
    if (!(key in runs)) { order[++keys] = key; line[key] = $0 }
    n = ++runs[key]
    for (f = 3; f <= NF; f++) values[key, f, n] = $f
  }
  END {
    for (k = 1; k <= keys; k++) {
      key = order[k]
      split(line[key], first, "\t")
      if (first[1] == "targets")
        printf "targets\t%s\t%s\t%.3f\t%.3f\t%.4f\t%.4f\t%.4f\t%.4f\n", first[2], first[3],
          median(key, 4), median(key, 5), median(key, 6), median(key, 7),
          lowest(key, 6), highest(key, 6)
      else
        printf "breadth\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.3f\t%.4f\t%.4f\t%.4f\t%.4f\n", first[2],
          median(key, 3), median(key, 4), median(key, 5), median(key, 6), median(key, 7),
          lowest(key, 3), highest(key, 3), lowest(key, 5), highest(key, 5)
    }
  }' "$work"/run-*.tsv >"$tsv"

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
  if [ "$layouts" != 1 ]; then
    echo "- layouts: $layouts links of the same code, functions shuffled (lld \`--shuffle-sections\`, seeds"
    echo "  $(echo $seeds | tr ' ' ',')); every figure is the median over the layouts of that layout's median"
  fi
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
  # The targets table, and with several layouts the spread table below it, from one pass.
  awk -F'\t' -v layouts="$layouts" '
    $1 == "targets" {
      if (!($2 in seen)) { seen[$2] = 1; order[++rows] = $2 }
      cell[$2, $3] = sprintf("%.3f (%.3f)", $6, $7)
      spread[$2, $3] = sprintf("%.3f-%.3f", $8, $9)
      if ($3 ~ /^seq/ && (!($2 in best) || $4 < bestms[$2])) { best[$2] = $3; bestms[$2] = $4 }
    }
    function table(cells, columns, first,   r, c, n, cols, line) {
      n = split(columns, cols, " ")
      for (r = 1; r <= rows; r++) {
        line = "| " order[r] " |" first[order[r]]
        for (c = 1; c <= n; c++) line = line " " cells[order[r], cols[c]] " |"
        print line
      }
    }
    END {
      for (r = 1; r <= rows; r++) named[order[r]] = sprintf(" %s %.2f ms |", best[order[r]], bestms[order[r]])
      table(cell, "seq-std weft-1 rayon-1 weft-2 rayon-2 huge-seq huge-weft-1 huge-weft-2 floor-1 floor-2 chili-1 chili-2", named)
      if (layouts == 1) exit
      print ""
      print "Over the layouts, lowest and highest of each layout'"'"'s median ratio:"
      print ""
      print "| row | weft 1 | Rayon 1 | weft 2 | Rayon 2 | floor-1 | floor-2 |"
      print "|---|---|---|---|---|---|---|"
      table(spread, "weft-1 rayon-1 weft-2 rayon-2 floor-1 floor-2", nothing)
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
  if [ "$layouts" != 1 ]; then
    echo "\`layouts\`: the lowest and highest of the layouts' median ratios at 1 thread."
  fi
  echo
  if [ "$layouts" = 1 ]; then
    echo "| kernel | 1 thread | 2 threads | weft-2 ms | instructions |"
    echo "|---|---|---|---|---|"
  else
    echo "| kernel | 1 thread | 2 threads | weft-2 ms | instructions | layouts |"
    echo "|---|---|---|---|---|---|"
  fi
  awk -F'\t' -v cg="$instructions" -v layouts="$layouts" '
    BEGIN { while ((getline line < cg) > 0) { split(line, f, " "); ratio[f[1]] = f[4] } }
    $1 == "breadth" {
      spread = layouts == 1 ? "" : sprintf(" %.3f-%.3f |", $8, $9)
      printf "| %s | %.3f (%.3f) | %.3f (%.3f) | %.3f | %s |%s\n", $2, $3, $4, $5, $6, $7, ($2 in ratio) ? ratio[$2] : "", spread
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
