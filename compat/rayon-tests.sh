#!/usr/bin/env bash
# Rayon's own tests as a regression suite for weft.
#
# Fetches the published rayon 1.12.0 and rayon-core 1.13.0 crates with cargo, builds their
# `tests/` and their unit tests (adapted to the public API by adapt_rayon_tests.py) against
# weft, with weft renamed to `rayon` and compat/rayon-core standing for `rayon_core`, runs
# every test binary at 1, 2 and 8 threads (RAYON_NUM_THREADS), and prints the counts and the
# failing names. Exits non-zero on a failure that compat/rayon-tests.allow does not list.
# Nothing of Rayon's is stored in this repository: the sources stay in cargo's registry
# cache, the adapted copies and the logs under target/rayon-compat/.
#
# The suite builds in weft's own target directory with the release profile, so weft itself
# is the library `cargo test --release` has built already (CI runs that first); the test
# binaries are all that is new, and they build at opt-level 1 (a profile override for the
# suite's package). Optimized, because a few of Rayon's tests walk 10^27 items
# (octillion.rs) and take minutes unoptimized.
#
# Usage: compat/rayon-tests.sh
# Environment: RAYON_TESTS_THREADS (default "1 2 8"), RAYON_TESTS_PROFILE (default "release"),
#              RAYON_TESTS_TIMEOUT (seconds per test binary and thread count, default 600),
#              RAYON_TESTS_SUITE_OPT_LEVEL (the test binaries' opt-level, default 1).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
COMPAT="$ROOT/compat"
CACHE="$ROOT/target/rayon-compat"
THREADS=${RAYON_TESTS_THREADS:-"1 2 8"}
PROFILE=${RAYON_TESTS_PROFILE:-release}
TIMEOUT=${RAYON_TESTS_TIMEOUT:-600}
RAYON_VERSION=1.12.0
CORE_VERSION=1.13.0
export CARGO_TERM_COLOR=never
command -v python3 >/dev/null || { echo "rayon-tests.sh needs python3"; exit 2; }

# 1. Fetch the published crates through a throwaway project; cargo puts their sources in
#    its registry cache, and `cargo metadata` says where.
mkdir -p "$CACHE/fetch/src"
cat >"$CACHE/fetch/Cargo.toml" <<TOML
[package]
name = "rayon-compat-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
rayon = "=$RAYON_VERSION"
rayon-core = "=$CORE_VERSION"
TOML
: >"$CACHE/fetch/src/lib.rs"
cargo fetch --quiet --manifest-path "$CACHE/fetch/Cargo.toml"
read -r RAYON_SRC CORE_SRC < <(cargo metadata --format-version 1 --manifest-path \
    "$CACHE/fetch/Cargo.toml" | python3 -c '
import json, os, sys
dirs = {p["name"]: os.path.dirname(p["manifest_path"]) for p in json.load(sys.stdin)["packages"]}
print(dirs["rayon"], dirs["rayon-core"])')
echo "rayon $RAYON_VERSION: $RAYON_SRC"
echo "rayon-core $CORE_VERSION: $CORE_SRC"

# 2. The suite: Rayon's test files as the integration tests of a crate whose `rayon` is weft.
SUITE="$CACHE/suite"
mkdir -p "$SUITE/src" "$SUITE/tests"
cat >"$SUITE/Cargo.toml" <<TOML
[package]
name = "rayon-compat-suite"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
rayon = { package = "weft", path = "$ROOT" }
rayon-core = { path = "$COMPAT/rayon-core" }

[dev-dependencies]
# Rayon's and rayon-core's own dev-dependencies (their tests need them; weft does not).
crossbeam-utils = "0.8"
libc = "0.2"
rand = "0.9"
rand_xorshift = "0.4"
scoped-tls = "1.0"

# The suite's own test crates at opt-level 1 (weft's generic code they instantiate too):
# building them is most of the script's time, and at opt-level 1 the build took 3 minutes
# less on 2 cores while the slowest binary, octillion.rs, still runs in about a second.
# Weft itself, its dependencies and compat/rayon-core stay at the release profile.
[profile.release.package.rayon-compat-suite]
opt-level = ${RAYON_TESTS_SUITE_OPT_LEVEL:-1}
TOML
: >"$SUITE/src/lib.rs"
# Start from weft's lockfile, so weft's dependencies build at the versions CI tests.
[ -f "$SUITE/Cargo.lock" ] || cp "$ROOT/Cargo.lock" "$SUITE/Cargo.lock"

install() { # copy $1 to $2 unless identical (an unchanged mtime means no rebuild)
    cmp -s "$1" "$2" || cp "$1" "$2"
}
for f in "$RAYON_SRC"/tests/*.rs; do install "$f" "$SUITE/tests/$(basename "$f")"; done
for f in "$CORE_SRC"/tests/*.rs; do install "$f" "$SUITE/tests/core_$(basename "$f")"; done
python3 "$COMPAT/adapt_rayon_tests.py" "$RAYON_SRC" "$CORE_SRC" "$SUITE/tests"

# 3. Build every test binary. If the whole build fails, build the targets one by one, so
#    that one file that does not compile costs only its own tests (counted as failed).
echo "building the suite (profile $PROFILE)"
export CARGO_TARGET_DIR="$ROOT/target"
build() { # build(extra cargo args...): append the JSON messages to build.json
    cargo test --quiet --manifest-path "$SUITE/Cargo.toml" --profile "$PROFILE" --no-run \
        --message-format=json-render-diagnostics "$@" >>"$CACHE/build.json"
}
: >"$CACHE/build.json"
: >"$CACHE/build-failed"
if ! build; then
    for f in "$SUITE"/tests/*.rs; do
        target=$(basename "$f" .rs)
        build --test "$target" || echo "$target" >>"$CACHE/build-failed"
    done
fi
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["profile"]["test"]:
        print(msg["target"]["name"], msg["executable"])' "$CACHE/build.json" | sort -u >"$CACHE/binaries"

# 4. Run each binary at each thread count; a test that does not report (a crash, a hang
#    cut by the timeout) counts as failed.
RESULTS="$CACHE/results"
: >"$RESULTS"
unset WEFT_NUM_THREADS
for n in $THREADS; do
    while read -r target; do echo "$n $target::(build) build-failed" >>"$RESULTS"; done \
        <"$CACHE/build-failed"
    while read -r name exe; do
        log="$CACHE/log.$name.$n"
        "$exe" --list --format=terse 2>/dev/null | sed -n 's/: test$//p' >"$log.list"
        status=0
        (cd "$SUITE" && RAYON_NUM_THREADS=$n timeout "$TIMEOUT" "$exe" >"$log" 2>"$log.err") \
            || status=$?
        python3 - "$name" "$n" "$status" "$log" "$log.list" >>"$RESULTS" <<'PY'
import re, sys
name, n, status, log, listing = sys.argv[1:6]
seen = {}
for line in open(log, errors="replace"):
    m = re.match(r"^test (\S+)(?: - should panic)? \.\.\. (ok|FAILED|ignored)", line)
    if m:
        seen[m.group(1)] = {"ok": "pass", "FAILED": "fail", "ignored": "ignored"}[m.group(2)]
for test in open(listing).read().split():
    verdict = seen.get(test)
    if verdict is None:
        verdict = "timeout" if status == "124" else "crash"
    print(n, f"{name}::{test}", verdict)
PY
    done <"$CACHE/binaries"
done

# 4b. Optional (RAYON_TESTS_DOCS=1; not in CI: each of ~270 examples is a separate
#     compilation): Rayon's and rayon-core's doc examples, with `rustdoc --test` on their
#     sources and `rayon` / `rayon_core` pointing at weft and compat/rayon-core.
if [ "${RAYON_TESTS_DOCS:-0}" = 1 ]; then
    rlib() { # the rlib the suite's build made for package $1
        python3 -c '
import json, sys
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == sys.argv[2]:
        print(next(f for f in msg["filenames"] if f.endswith(".rlib")))
        break' "$CACHE/build.json" "$1"
    }
    deps=$(dirname "$(rlib weft)")
    for crate in rayon rayon_core; do
        src=$RAYON_SRC
        [ "$crate" = rayon_core ] && src=$CORE_SRC
        log="$CACHE/log.doc.$crate"
        status=0
        (cd "$CACHE" && rustdoc --test "$src/src/lib.rs" --crate-name "$crate" --edition 2021 \
            -L "dependency=$deps" --extern "rayon=$(rlib weft)" \
            --extern "rayon_core=$(rlib rayon_core)" --extern "either=$(rlib either)" \
            --extern "crossbeam_deque=$(rlib crossbeam_deque)" \
            --extern "crossbeam_utils=$(rlib crossbeam_utils)" \
            --extern "scoped_tls=$(rlib scoped_tls)" --extern "rand=$(rlib rand)" \
            --extern "rand_xorshift=$(rlib rand_xorshift)" >"$log" 2>&1) || status=$?
        python3 - "doc_$crate" "$status" "$log" >>"$RESULTS" <<'PY'
import re, sys
name, status, log = sys.argv[1:4]
text = open(log, errors="replace").read()
found = False
for m in re.finditer(r"^test (.+?) \.\.\. (ok|FAILED|ignored)$", text, flags=re.M):
    found = True
    verdict = {"ok": "pass", "FAILED": "fail", "ignored": "ignored"}[m.group(2)]
    test = re.sub(r"\s+", "_", m.group(1))
    print("doc", f"{name}::{test}", verdict)
if not found:
    print("doc", f"{name}::(rustdoc)", "crash")
PY
    done
fi

# 5. Report against the allow-list.
python3 - "$RESULTS" "$COMPAT/rayon-tests.allow" "$THREADS" <<'PY'
import collections, sys
results, allow_file, threads = sys.argv[1], sys.argv[2], sys.argv[3].split()
allowed = set()
for line in open(allow_file):
    entry = line.split("#")[0].strip()
    if entry:
        allowed.add(entry)
counts = collections.defaultdict(collections.Counter)
failing = collections.defaultdict(list)
for line in open(results):
    n, test, verdict = line.split()
    counts[n][verdict] += 1
    if verdict not in ("pass", "ignored"):
        failing[test].append(f"{n}:{verdict}")
for n in threads + (["doc"] if "doc" in counts else []):
    c = counts[n]
    bad = sum(v for k, v in c.items() if k not in ("pass", "ignored"))
    label = "doc examples" if n == "doc" else f"threads={n}"
    print(f"{label}: {c['pass']} passed, {bad} failed, {c['ignored']} ignored")
unexpected = 0
for test in sorted(failing):
    mark = "allowed (compat/rayon-tests.allow)" if test in allowed else "FAILED"
    unexpected += test not in allowed
    print(f"  {mark}: {test} at threads {', '.join(failing[test])}")
for test in sorted(allowed - set(failing)):
    print(f"  note: {test} is allow-listed but passed at every thread count")
print(f"{unexpected} unexpected failure(s)")
sys.exit(1 if unexpected else 0)
PY
