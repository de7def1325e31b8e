#!/usr/bin/env python3
"""Adapts Rayon's in-crate unit tests to Rayon's public API, at run time.

Used by `compat/rayon-tests.sh`. Rayon's sources are read from cargo's registry cache and the
adapted copies are written under `target/`; nothing of Rayon's is kept in this repository.

Usage: adapt_rayon_tests.py RAYON_SRC RAYON_CORE_SRC OUT_DIR

Each unit test file `src/**/test.rs` becomes one integration test file in OUT_DIR, with:
- paths into the crate (`crate::`, `super::`) turned into the public paths `rayon::...` /
  `rayon_core::...`;
- the tests that need private items removed, each listed in SKIP below with the reason (the
  script prints them, so the count of adapted tests is visible in every run).
"""
import os
import re
import sys

# (file, test name) -> why it cannot run against the public API. Only tests that name
# private items belong here: a test that compiles but fails is a real difference and goes to
# compat/rayon-tests.allow instead.
SKIP = {
    ("src/thread_pool/test.rs", "workers_stop"): "reads the pool's private `registry` field",
    ("src/thread_pool/test.rs", "sleeper_stop"): "reads the pool's private `registry` field",
}

# Rayon-core's tests call its private `unwind::halt_unwinding`; this is the same thing
# through std's public API.
UNWIND_SHIM = """
mod unwind {
    pub(crate) fn halt_unwinding<F: FnOnce() -> R, R>(f: F) -> std::thread::Result<R> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
    }
}
"""

# source file (relative to its crate) -> (output name, crate path the file lives in)
RAYON_FILES = {
    "src/iter/test.rs": ("unit_iter", "rayon::iter"),
    "src/slice/test.rs": ("unit_slice", "rayon::slice"),
}
CORE_FILES = {
    "src/test.rs": ("core_unit_root", "rayon_core"),
    "src/broadcast/test.rs": ("core_unit_broadcast", "rayon_core"),
    "src/join/test.rs": ("core_unit_join", "rayon_core"),
    "src/scope/test.rs": ("core_unit_scope", "rayon_core"),
    "src/spawn/test.rs": ("core_unit_spawn", "rayon_core"),
    "src/thread_pool/test.rs": ("core_unit_thread_pool", "rayon_core"),
}


def item_span(lines, name):
    """Line range [start, end) of `fn name` with its attributes and doc comments."""
    pat = re.compile(r"^\s*(pub(\(crate\))?\s+)?fn\s+" + re.escape(name) + r"\b")
    for i, line in enumerate(lines):
        if pat.match(line):
            start = i
            while start > 0 and re.match(r"^\s*(#\[|///)", lines[start - 1]):
                start -= 1
            depth, seen = 0, False
            for j in range(i, len(lines)):
                code = re.sub(r'"([^"\\]|\\.)*"|\'([^\'\\]|\\.)\'', "", lines[j])
                code = code.split("//")[0]
                depth += code.count("{") - code.count("}")
                seen = seen or "{" in code
                if seen and depth == 0:
                    return start, j + 1
    raise SystemExit(f"adapt_rayon_tests.py: fn {name} not found (Rayon's file changed?)")


# Modules that are private in Rayon: a parent's `use` of them cannot be carried over.
PRIVATE_MODULES = ("private", "split_producer", "sort", "job", "latch", "registry", "unwind")


def parent_imports(root, key, crate_path, crate_name):
    """`use super::*` also brings in the parent module's own (private) imports. Re-create
    those that name public paths, as a glob import, so that the test's explicit imports
    still shadow them as they did in the crate."""
    parent = os.path.join(root, os.path.dirname(key), "mod.rs")
    if not os.path.exists(parent):
        parent = os.path.join(root, os.path.dirname(key) + ".rs")
    uses = []
    for line in open(parent):
        m = re.match(r"^use (.*);$", line.rstrip())
        if not m or any(re.search(rf"\b{p}\b", m.group(1)) for p in PRIVATE_MODULES):
            continue
        path = re.sub(r"^self::", crate_path + "::", m.group(1))
        uses.append("    pub(crate) use " + re.sub(r"^crate::", crate_name + "::", path) + ";\n")
    return "mod parent_imports {\n" + "".join(uses) + "}\nuse parent_imports::*;\n"


def adapt(text, crate_path, crate_name, key):
    lines = text.splitlines(keepends=True)
    for (file, name), _reason in sorted(SKIP.items()):
        if file != key:
            continue
        start, end = item_span(lines, name)
        lines[start:end] = [f"// (skipped: {name}, see adapt_rayon_tests.py)\n"]
    text = "".join(lines)
    parent = crate_path.rsplit("::", 1)[0] if "::" in crate_path else crate_name
    text = re.sub(r"\bsuper::", crate_path + "::", text)
    text = re.sub(r"\bcrate::", crate_name + "::", text)
    # `registry::in_worker(op)` runs `op` on a worker of the current (or global) pool and
    # waits; a `scope` does the same through the public API.
    text = re.sub(rf"{crate_name}::registry::in_worker\((move )?\|_, _\|",
                  rf"{crate_name}::scope(\1|_|", text)
    text = re.sub(rf"^use {crate_name}::unwind;\n", "", text, flags=re.M)
    text = text.replace(f"{crate_name}::unwind", "unwind")
    if "unwind" in text:
        text += UNWIND_SHIM
    return text


def use_tree_names(tree):
    """The names a `use` tree brings in: `a::{b, c::{D, E as F}, self}` gives b, D, F, c."""
    tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|::|[{},*]", tree)
    pos = 0

    def parse(parent):
        nonlocal pos
        last, found = parent, []
        while pos < len(tokens) and tokens[pos] not in (",", "}"):
            token = tokens[pos]
            pos += 1
            if token == "{":
                found += parse_list(last)
                pos += 1  # the closing brace
                return found
            if token == "as":
                last = tokens[pos]
                pos += 1
            elif token not in ("::", "*"):
                last = parent if token == "self" else token
        return found + [last]

    def parse_list(parent):
        nonlocal pos
        found = parse(parent)
        while pos < len(tokens) and tokens[pos] == ",":
            pos += 1
            if tokens[pos] != "}":
                found += parse(parent)
        return found

    return set(parse_list(None)) - {None, "self"}


def public_items(path):
    """The names a module file declares or re-exports publicly at its top level (`pub use`,
    `pub fn`, `pub struct`, ... and `pub mod`), and the `pub mod`s that live in files."""
    text = open(path).read()
    names = set()
    for m in re.finditer(r"^pub use ([^;]+);", text, flags=re.M):
        names.update(use_tree_names(m.group(1)))
    kinds = r"(?:fn|struct|enum|trait|type|mod|const|static)"
    names.update(re.findall(rf"^pub {kinds} (\w+)", text, flags=re.M))
    file_mods = re.findall(r"^pub mod (\w+);", text, flags=re.M)
    return sorted(names - {"self", "*"}), file_mods


def module_file(directory, name):
    for candidate in (os.path.join(directory, name, "mod.rs"), os.path.join(directory, name + ".rs")):
        if os.path.exists(candidate):
            return candidate
    raise SystemExit(f"adapt_rayon_tests.py: no file for module {name} in {directory}")


def api_test(rayon_src, core_src):
    """A test that compiles only if every public item of rayon's and rayon-core's modules
    (the crate roots and every public module in a file of its own) is there."""
    out = "// Generated at run time by compat/adapt_rayon_tests.py from the crates' sources.\n"
    out += "#![allow(deprecated, unused_imports)]\n"
    modules = 0
    for crate, src in (("rayon", rayon_src), ("rayon_core", core_src)):
        todo = [(crate, os.path.join(src, "src", "lib.rs"))]
        while todo:
            path, file = todo.pop()
            items, file_mods = public_items(file)
            directory = os.path.dirname(file) if file.endswith(("lib.rs", "mod.rs")) else file[:-3]
            todo += [(f"{path}::{m}", module_file(directory, m)) for m in file_mods]
            if items:
                out += f"mod m{modules} {{\n    use {path}::{{{', '.join(items)}}};\n}}\n"
                modules += 1
    out += "\n#[test]\nfn every_public_item_is_there() {}\n"
    return out


def write_if_changed(dest, text):
    old = open(dest).read() if os.path.exists(dest) else None
    if old != text:  # keep the mtime when nothing changed: no rebuild
        with open(dest, "w") as f:
            f.write(text)


def main():
    rayon_src, core_src, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    jobs = [(rayon_src, f, n, p, "rayon") for f, (n, p) in RAYON_FILES.items()]
    jobs += [(core_src, f, n, p, "rayon_core") for f, (n, p) in CORE_FILES.items()]
    for root, rel, name, path, crate_name in jobs:
        with open(os.path.join(root, rel)) as f:
            text = f.read()
        adapted = f"// Adapted at run time from {crate_name} {rel} by compat/adapt_rayon_tests.py.\n"
        adapted += "#![allow(deprecated, unused_imports, dead_code)]\n"
        text = text.replace("#![cfg(test)]", "")
        text = re.sub(r"^//!", "//", text, flags=re.M)  # the file is no longer a module
        body = adapt(text, path, crate_name, rel)
        if re.search(r"^use super::\*;", text, flags=re.M):
            body = parent_imports(root, rel, path, crate_name) + body
        adapted += body
        write_if_changed(os.path.join(out, name + ".rs"), adapted)
    write_if_changed(os.path.join(out, "api_items.rs"), api_test(rayon_src, core_src))
    for (file, name), reason in sorted(SKIP.items()):
        print(f"  not adapted: {file}::{name}: {reason}")


if __name__ == "__main__":
    main()
