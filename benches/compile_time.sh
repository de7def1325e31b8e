#!/usr/bin/env bash
# Build cost of parallel loops, weft against Rayon, measured the way a user builds: a crate
# that depends on weft (this checkout) or on crates.io's Rayon, default profiles, whose one
# function holds REPS copies of twelve everyday loop shapes (48 loops by default; each copy
# differs by a constant, so no two loops are the same code). For each library it builds the
# crate once to warm the dependencies, then, RUNS times, touches the source and times a
# release rebuild and two dev rebuilds of the crate alone. Each rebuild follows an edit of
# one line of the loops' function (a touch alone lets an incremental dev build reuse
# everything): "dev edit" is incremental, as `cargo build` is by default; "dev full" has
# incremental off (its own target directory), the crate's whole dev build. It also reports
# the stripped release binary's size and the crate's LLVM IR lines (`--emit=llvm-ir`),
# which do not depend on the machine.
#
#   benches/compile_time.sh                 4 copies of 12 shapes, 2 runs, weft and Rayon
#   benches/compile_time.sh --reps 1 --runs 1
#   benches/compile_time.sh --ir-budget N   weft only, IR lines only: fails if weft's IR per
#                                           loop exceeds N (CI's check; no timing)
set -euo pipefail
cd "$(dirname "$0")/.."
weft=${WEFT_PATH:-$(pwd)}
reps=4
runs=2
budget=""
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --ir-budget) budget=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
loops=$((reps * 12))
dir=${COMPILE_TIME_DIR:-$(mktemp -d)}
mkdir -p "$dir/src"
cat >"$dir/Cargo.toml" <<EOF
[package]
name = "compile-time-probe"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
weft = { path = "$weft" }
rayon = { version = "1.10", optional = true }
EOF

# One copy of the twelve shapes, with constant $1 (so that no two copies are the same code).
shapes() {
  local k=$1
  cat <<EOF
    t += v.par_iter().map(|&x| x.wrapping_mul($k)).filter(|x| x % 3 != 0).sum::<u64>();
    t += v.par_iter().zip(w.par_iter()).map(|(a, b)| a ^ b ^ $k).max().unwrap_or(0);
    t += v.par_chunks(64).fold(|| 0u64, |a, c| a + c.iter().sum::<u64>() * $k).reduce(|| 0, |a, b| a + b);
    t += v.par_iter().enumerate().filter_map(|(i, &x)| (i % $k == 0).then_some(x)).collect::<Vec<u64>>().len() as u64;
    t += v.par_iter().fold(|| 0u64, |a, &x| a.wrapping_add(x ^ $k)).sum::<u64>();
    t += (0..v.len() as u64).into_par_iter().map(|i| (i * $k) % 1009).min().unwrap_or(0);
    t += v.par_iter().position_any(|&x| x == $k * 7).unwrap_or(0) as u64;
    let mut s: Vec<u64> = v.par_iter().map(|&x| x ^ $k).collect();
    s.par_sort_unstable();
    t += s[0];
    t += v.par_iter().flat_map_iter(|&x| 0..(x % $k)).count() as u64;
    t += v.par_windows(2).filter(|p| p[0] + $k > p[1]).count() as u64;
    let (a, b): (Vec<u64>, Vec<u64>) = v.par_iter().copied().partition(|&x| x % $k == 0);
    t += a.len() as u64 + b.len() as u64;
    t += v.par_iter().fold(|| vec![0u64; 16], |mut h, &x| { h[(x % 16) as usize] += $k; h })
        .reduce(|| vec![0u64; 16], |mut h, g| { h.iter_mut().zip(g).for_each(|(x, y)| *x += y); h })[0];
EOF
}

{
  echo '#[cfg(feature = "rayon")]'
  echo 'use rayon as lib;'
  echo '#[cfg(not(feature = "rayon"))]'
  echo 'use weft as lib;'
  echo 'use lib::prelude::*;'
  echo 'pub fn run(v: &[u64], w: &[u64]) -> u64 {'
  echo '    let mut t = 0u64;'
  echo '    t += 0; // edit'
  for i in $(seq 1 "$reps"); do shapes $((i + 1)); done
  echo '    t'
  echo '}'
  echo 'fn main() {'
  echo '    let v: Vec<u64> = (0..10_000).collect();'
  echo '    let w: Vec<u64> = v.iter().map(|x| x * 3).collect();'
  echo '    println!("{}", run(&v, &w));'
  echo '}'
} >"$dir/src/main.rs"

cd "$dir"
export CARGO_TARGET_DIR="$dir/target"
export CARGO_TERM_COLOR=never

# The IR lines of the probe crate alone (its own .ll file), release profile.
ir_lines() {
  local features=$1
  rm -f target/release/deps/compile_time_probe-*.ll
  # shellcheck disable=SC2086
  cargo rustc --release --quiet $features -- --emit=llvm-ir >/dev/null
  cat target/release/deps/compile_time_probe-*.ll | wc -l
}

if [ -n "$budget" ]; then
  lines=$(ir_lines "")
  per_loop=$((lines / loops))
  echo "weft: $lines LLVM IR lines for $loops loops: $per_loop per loop (budget $budget)"
  [ "$per_loop" -le "$budget" ] || { echo "over the IR budget"; exit 1; }
  exit 0
fi

edits=0
timed_rebuild() {
  local profile=$1 features=$2
  edits=$((edits + 1))
  sed -i -E "s|t \+= [0-9]+; // edit|t += $edits; // edit|" src/main.rs
  local begin end
  begin=$(date +%s.%N)
  # shellcheck disable=SC2086
  cargo build $profile --quiet $features
  end=$(date +%s.%N)
  awk "BEGIN { printf \"%.1f\", $end - $begin }"
}

echo "$loops parallel loops (12 shapes x $reps) in one function; rebuild of that crate alone"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); the libraries alternate run by run"
features_of() { if [ "$1" = rayon ]; then echo "--features rayon"; fi; }
for lib in weft rayon; do
  features=$(features_of $lib)
  # shellcheck disable=SC2086
  cargo build --release --quiet $features
  # shellcheck disable=SC2086
  cargo build --quiet $features
  # shellcheck disable=SC2086
  CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$dir/target-full" cargo build --quiet $features
done
declare -A release dev full
for _ in $(seq 1 "$runs"); do
  for lib in weft rayon; do
    features=$(features_of $lib)
    release[$lib]="${release[$lib]:-} $(timed_rebuild --release "$features")"
    dev[$lib]="${dev[$lib]:-} $(timed_rebuild "" "$features")"
    full[$lib]="${full[$lib]:-} $(CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$dir/target-full" timed_rebuild "" "$features")"
  done
done
printf '| lib | release rebuild (s) | dev edit (s) | dev full (s) | stripped release binary (bytes) | IR lines | IR lines per loop |\n'
printf '|---|---|---|---|---|---|---|\n'
for lib in weft rayon; do
  features=$(features_of $lib)
  # shellcheck disable=SC2086
  cargo build --release --quiet $features
  cp target/release/compile-time-probe "$dir/stripped"
  strip "$dir/stripped"
  size=$(stat -c %s "$dir/stripped")
  lines=$(ir_lines "$features")
  printf '| %s |%s |%s |%s | %s | %s | %s |\n' "$lib" "${release[$lib]}" "${dev[$lib]}" "${full[$lib]}" "$size" "$lines" $((lines / loops))
done
