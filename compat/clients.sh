#!/usr/bin/env bash
# Real crates that use Rayon, run on weft: the published hashbrown, indexmap and jwalk crates'
# own test suites (hashbrown's and indexmap's with their `rayon` features on), once as
# published (on Rayon) and once with weft patched in for rayon and rayon-core (compat/rayon,
# compat/rayon-core; the same `[patch.crates-io]` recipe as in the README), at 1 and 2
# threads. A lockfile that pins an older Rayon than the patch (jwalk 0.8.1's: rayon 1.6.1)
# keeps it until `cargo update -p rayon -p rayon-core`, which the weft copy then runs, as the
# README says. Prints the pass counts side by side; exits non-zero if weft fails a test that
# Rayon passes. A suite that runs longer than CLIENT_TIMEOUT counts as hung (status 124).
#
# Not part of CI (two full builds of each crate and its tests). Sources come from crates.io
# through cargo; copies, builds and logs live under target/compat-clients/.
#
# Usage: compat/clients.sh
# Environment: CLIENTS (default "hashbrown@0.17.2:rayon indexmap@2.14.2:rayon jwalk@0.8.1",
# each name@version[:features]), CLIENT_THREADS ("1 2"), CLIENT_TIMEOUT (seconds, 900).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE="$ROOT/target/compat-clients"
CLIENTS=${CLIENTS:-"hashbrown@0.17.2:rayon indexmap@2.14.2:rayon jwalk@0.8.1"}
THREADS=${CLIENT_THREADS:-"1 2"}
TIMEOUT=${CLIENT_TIMEOUT:-900}
export CARGO_TERM_COLOR=never
command -v python3 >/dev/null || { echo "clients.sh needs python3"; exit 2; }
mkdir -p "$CACHE/fetch/src"

# 1. Fetch the published crates through a throwaway project, find their sources.
{
    printf '[package]\nname = "compat-clients-fetch"\nversion = "0.0.0"\nedition = "2021"\n'
    printf 'publish = false\n\n[workspace]\n\n[dependencies]\n'
    for client in $CLIENTS; do
        client=${client%%:*}
        printf '%s = "=%s"\n' "${client%@*}" "${client#*@}"
    done
} >"$CACHE/fetch/Cargo.toml"
: >"$CACHE/fetch/src/lib.rs"
cargo fetch --quiet --manifest-path "$CACHE/fetch/Cargo.toml"
sources=$(cargo metadata --format-version 1 --manifest-path "$CACHE/fetch/Cargo.toml" |
    python3 -c '
import json, os, sys
for p in json.load(sys.stdin)["packages"]:
    print(p["name"], os.path.dirname(p["manifest_path"]))')

# 2. Two copies of each: as published, and with weft patched in.
summary="$CACHE/summary"
: >"$summary"
for client in $CLIENTS; do
    features=
    case $client in *:*) features="--features ${client#*:}" ;; esac
    client=${client%%:*}
    name=${client%@*}
    src=$(awk -v n="$name" '$1 == n { print $2 }' <<<"$sources")
    for flavour in rayon weft; do
        dir="$CACHE/$name-$flavour"
        rm -rf "$dir"
        cp -r "$src" "$dir"
        chmod -R u+w "$dir"
        if [ "$flavour" = weft ]; then
            cat >>"$dir/Cargo.toml" <<TOML

[patch.crates-io]
rayon = { path = "$ROOT/compat/rayon" }
rayon-core = { path = "$ROOT/compat/rayon-core" }
TOML
        fi
        export CARGO_TARGET_DIR="$CACHE/target-$name-$flavour"
        if [ "$flavour" = weft ] &&
            ! cargo tree --quiet --manifest-path "$dir/Cargo.toml" $features -e normal,dev \
                -i weft >/dev/null 2>&1; then
            # The lockfile pins an older Rayon: the patch applies once these two move.
            echo "== $name ($flavour): cargo update -p rayon -p rayon-core"
            cargo update --quiet --manifest-path "$dir/Cargo.toml" -p rayon -p rayon-core
        fi
        echo "== $name ($flavour): building"
        cargo test --quiet --manifest-path "$dir/Cargo.toml" $features --no-run
        if [ "$flavour" = weft ]; then
            # The patch took: weft is in the graph, under rayon-core (and rayon).
            cargo tree --manifest-path "$dir/Cargo.toml" $features -e normal,dev -i weft \
                | tee "$CACHE/$name-weft.tree" | head -5
        fi
        for n in $THREADS; do
            log="$CACHE/$name-$flavour.$n.log"
            status=0
            RAYON_NUM_THREADS=$n WEFT_NUM_THREADS=$n timeout "$TIMEOUT" cargo test \
                --manifest-path "$dir/Cargo.toml" $features --no-fail-fast >"$log" 2>&1 ||
                status=$?
            python3 - "$name" "$flavour" "$n" "$status" "$log" >>"$summary" <<'PY'
import re, sys
name, flavour, n, status, log = sys.argv[1:6]
passed = failed = 0
for m in re.finditer(r"test result: \w+\. (\d+) passed; (\d+) failed", open(log, errors="replace").read()):
    passed += int(m.group(1))
    failed += int(m.group(2))
print(name, n, flavour, passed, failed, status)
PY
        done
    done
done

# 3. Side by side ("hung": the suite ran past CLIENT_TIMEOUT).
python3 - "$summary" <<'PY'
import collections, sys
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    name, n, flavour, passed, failed, status = line.split()
    rows[(name, n)][flavour] = (int(passed), int(failed), status)
print(f"{'crate':<12}{'threads':>8}{'Rayon passed/failed':>22}{'weft passed/failed':>22}")
worse = 0
for (name, n), r in sorted(rows.items()):
    (rp, rf, rs), (wp, wf, ws) = r["rayon"], r["weft"]
    cell = lambda p, f, s: f"{p}/{f}" + (" hung" if s == "124" else "")
    print(f"{name:<12}{n:>8}{cell(rp, rf, rs):>22}{cell(wp, wf, ws):>22}")
    worse += wf > rf or wp < rp or (ws == "124" and rs != "124")
sys.exit(1 if worse else 0)
PY
