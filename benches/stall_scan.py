#!/usr/bin/env python3
"""Looks for store-forwarding stalls in the machine code of weft's `join` (x86-64).

A load that reads more bytes than the store it overlaps (a one-byte store, then a load of
the whole word around it) cannot take its value from the store: it waits until the store
has reached the cache. On a path that runs at every `join` such a pair cost more than the
rest of the fork: a 2-thread tree sum ran no faster than one thread until the `JobRef`
built in `join`'s frame (a one-byte `kind` beside two words) stopped being written and read
back (benches/RESULTS.md, 2026-11-29). rustc decides where such pairs appear, so only the
machine code shows them.

Usage: stall_scan.py BINARY [FUNCTION_REGEX]
Disassembles BINARY with objdump and, in every function whose demangled name matches
FUNCTION_REGEX (default: weft's join), reports each store of 1, 2 or 4 bytes to a stack
slot followed, within WINDOW instructions and no call or jump between, by a wider load that
covers it. Exits 1 if it finds any, 0 otherwise.
"""

import re
import subprocess
import sys
from collections import Counter, deque

WINDOW = 6
STORE = re.compile(r"^mov([bwl])\s+[^,]+,(-?0x[0-9a-f]+)?\((%rsp|%rbp)\)$")
LOAD = re.compile(r"^(?:mov|movq|movups|movdqu|movaps)\s+(-?0x[0-9a-f]+)?\((%rsp|%rbp)\),(%\w+)$")
STORE_BYTES = {"b": 1, "w": 2, "l": 4}


def load_bytes(register):
    if register.startswith("%xmm"):
        return 16
    if re.fullmatch(r"%r\w+", register) and not register.endswith(("d", "w", "b")):
        return 8
    return 4


def scan(binary, pattern):
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", "-C", binary],
        capture_output=True, text=True, check=True,
    ).stdout
    hits = Counter()
    function, recent = None, deque(maxlen=WINDOW)
    for line in listing.splitlines():
        header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if header:
            name = header.group(1)
            function = name if re.search(pattern, name) else None
            recent.clear()
            continue
        if function is None or "\t" not in line:
            continue
        instruction = line.split("\t")[-1].strip()
        store = STORE.match(instruction)
        if store:
            offset = int(store.group(2) or "0", 16)
            recent.append((offset, STORE_BYTES[store.group(1)], store.group(3)))
            continue
        load = LOAD.match(instruction)
        if load:
            offset = int(load.group(1) or "0", 16)
            width = load_bytes(load.group(3))
            for stored, size, base in recent:
                if base == load.group(2) and offset <= stored and stored + size <= offset + width and width > size:
                    hits[function] += 1
        elif re.match(r"^(call|jmp|ret|j[a-z]+)\b", instruction):
            recent.clear()
    return hits


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    pattern = sys.argv[2] if len(sys.argv) == 3 else r"^weft::pool::join::"
    hits = scan(sys.argv[1], pattern)
    for function, count in hits.most_common():
        print(f"{count} store-forwarding stall(s) in {function}")
    if hits:
        sys.exit(1)
    print(f"no store-forwarding stall in functions matching {pattern!r}")


if __name__ == "__main__":
    main()
