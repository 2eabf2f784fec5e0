#!/usr/bin/env python3
"""Where nvcc puts the unlock of a Listing 7 loop (lab 09, task 2, question 2).

  unlock_placement.py NVCC LOCKS_CU INCLUDE_DIR...

Compiles LOCKS_CU (a lock_count whose Listing 7 loop keeps `volatile bool done`) to PTX twice with
NVCC, as it is and with `volatile` taken off `done`, and prints for each where the unlock of
lock_count (its atom.shared.and) lies against the loop of the try (its atom.shared.or): "in-loop"
when no branch back to the loop lies between them, "after-loop" when one does. Exit 1 when the
file has no such loop or the PTX has no such accesses. Lab 09's graded case of task 2q takes its
expected answer from what this test asserts on the installed nvcc (labs/CMakeLists.txt).
"""
import os
import re
import subprocess
import sys
import tempfile


def placement(ptx):
    m = re.search(r"\.entry\s+\S*lock_count\S*\(.*?\n\}\n", ptx, re.S)
    if not m:
        raise SystemExit("unlock_placement: no lock_count entry in the PTX")
    lines = m.group(0).splitlines()
    labels = {}
    for i, line in enumerate(lines):
        lm = re.match(r"^(\$\w+):", line.strip())
        if lm:
            labels[lm.group(1)] = i
    try_at = next((i for i, l in enumerate(lines) if "atom.shared.or" in l), None)
    if try_at is None:
        raise SystemExit("unlock_placement: lock_count's PTX has no atom.shared.or (the try)")
    unlock_at = next((i for i in range(try_at, len(lines)) if "atom.shared.and" in lines[i]), None)
    if unlock_at is None:
        raise SystemExit("unlock_placement: lock_count's PTX has no atom.shared.and (the unlock) after the try")
    for i in range(try_at + 1, unlock_at):
        bm = re.search(r"\bbra(?:\.uni)?\s+(\$\w+)", lines[i])
        if bm and labels.get(bm.group(1), len(lines)) <= try_at:
            return "after-loop"
    return "in-loop"


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    nvcc, source, includes = sys.argv[1], sys.argv[2], sys.argv[3:]
    text = open(source).read()
    if "volatile bool done" not in text:
        raise SystemExit(f"unlock_placement: {source} has no `volatile bool done`")
    with tempfile.TemporaryDirectory() as tmp:
        for label, body in (("volatile", text), ("not volatile", text.replace("volatile bool done", "bool done"))):
            src = os.path.join(tmp, "locks.cu")
            with open(src, "w") as f:
                f.write(body)
            out = os.path.join(tmp, "locks.ptx")
            cmd = [nvcc, "-ptx", "-arch=compute_75", "-std=c++17", src, "-o", out] + [f"-I{d}" for d in includes]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.stderr.write(r.stderr)
                raise SystemExit(f"unlock_placement: {' '.join(cmd)} failed")
            print(f"{label}: unlock {placement(open(out).read())}")


if __name__ == "__main__":
    main()
