#!/bin/sh
# Compile time of parallel loops, weft against Rayon: generates a crate whose one function
# holds N distinct loops of four everyday shapes (`map(..).sum()`, `filter(..).count()`,
# `map(..).collect::<Vec<_>>()`, `map(..).max()` over a slice), depending on this checkout
# of weft and on crates.io's Rayon, builds it once to warm the dependencies, then times a
# release rebuild of the crate alone with each library (default release profile, as a user
# builds). With cargo-llvm-lines installed (`cargo install cargo-llvm-lines`) it also counts
# the LLVM IR lines each library's loops generate, which does not depend on the machine.
#
#   benches/compile_time.sh        40 loops
#   benches/compile_time.sh 100    100 loops
set -eu
cd "$(dirname "$0")/.."
weft=$(pwd)
loops=${1:-40}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/src"
cat >"$dir/Cargo.toml" <<EOF
[package]
name = "compile-time-probe"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
weft = { path = "$weft" }
rayon = "1.10"

[features]
rayon = []
EOF
{
  echo '#[cfg(feature = "rayon")]'
  echo 'use rayon as lib;'
  echo '#[cfg(not(feature = "rayon"))]'
  echo 'use weft as lib;'
  echo 'use lib::prelude::*;'
  echo 'pub fn run(v: &[u64]) -> u64 {'
  echo '    let mut t = 0u64;'
  i=0
  while [ "$i" -lt "$loops" ]; do
    k=$((i + 1))
    case $((i % 4)) in
      0) echo "    t += v.par_iter().map(|&x| x.wrapping_mul($k)).sum::<u64>();" ;;
      1) echo "    t += v.par_iter().filter(|&&x| x % $k == 0).count() as u64;" ;;
      2) echo "    t += v.par_iter().map(|&x| x ^ $k).collect::<Vec<u64>>().len() as u64;" ;;
      3) echo "    t += v.par_iter().map(|&x| x >> ($k % 7)).max().unwrap_or(0);" ;;
    esac
    i=$((i + 1))
  done
  echo '    t'
  echo '}'
  echo 'fn main() {'
  echo '    let v: Vec<u64> = (0..1000).collect();'
  echo '    println!("{}", run(&v));'
  echo '}'
} >"$dir/src/main.rs"

cd "$dir"
export CARGO_TARGET_DIR="$dir/target"
echo "$loops parallel loops in one function; release rebuild of that crate alone"
for lib in weft rayon; do
  features=""
  [ "$lib" = rayon ] && features="--features rayon"
  # shellcheck disable=SC2086 # an empty or one-word flag list
  cargo build --release --quiet $features
  touch src/main.rs
  begin=$(date +%s.%N)
  # shellcheck disable=SC2086
  cargo build --release --quiet $features
  end=$(date +%s.%N)
  seconds=$(awk "BEGIN { printf \"%.1f\", $end - $begin }")
  lines=""
  if cargo llvm-lines --version >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    lines=$(cargo llvm-lines --release $features 2>/dev/null | awk '/\(TOTAL\)/ { print $1; exit }')
    lines=", $lines LLVM IR lines"
  fi
  echo "$lib: $seconds s$lines"
done
