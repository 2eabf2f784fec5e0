#!/usr/bin/env python3
"""Checks that a conformance program's sm_90 build would hand the simulator the same PTX as its
base build, so that building and running it a second time for sm_90 would test nothing new.

Programs whose sm_90 PTX differs (nvcc's sm_80+/sm_90 code paths: redux.sync, elect.sync,
%reserved_smem_offset_*, cluster registers, ...) carry the tag `sm90` in programs.txt and get a
second build and its own tests (conformance.NAME.sm90.MODEL). For every other program this check
compiles its sources to PTX for sm_90 and compares them with the PTX in the base build's
fatbinary, ignoring the header (.version, .target) and comments. When they differ, the program
needs the tag: this check fails and says so.

    same_ptx_sm90.py --exe BASE_PROGRAM --program NAME -- COMPILER FLAGS... SOURCES...

COMPILER is synclab-nvcc with the flags of the base build and -arch=sm_90 in place of its own
architecture; the sources are the arguments that end in .cu.
"""
import os
import re
import subprocess
import sys
import tempfile


def modules_in(exe):
    """The PTX modules in a program built by synclab-nvcc (uncompressed in its fatbinary)."""
    data = open(exe, "rb").read()
    found = []
    for m in re.finditer(rb"\.version \d+\.\d+\s", data):
        start = data.rfind(b"\0", 0, m.start()) + 1
        end = data.find(b"\0", m.start())
        found.append(data[start:end].decode("latin-1"))
    return found


def body(ptx):
    """PTX without its header lines, comments and layout (the fatbinary keeps it without
    indentation): what the simulator executes."""
    keep = []
    for line in ptx.split("\n"):
        s = " ".join(line.split("//", 1)[0].split())
        if s.startswith((".version", ".target")) or not s:
            continue
        keep.append(s)
    return "\n".join(keep)


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    opts, cmd = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    exe = opts[opts.index("--exe") + 1]
    name = opts[opts.index("--program") + 1]
    sources = [a for a in cmd if a.endswith(".cu")]
    flags = [a for a in cmd if not a.endswith(".cu")]
    if not sources:
        sys.exit("same_ptx_sm90.py: no .cu source on the command line")
    base = modules_in(exe)
    if not base:
        sys.exit(f"same_ptx_sm90.py: no PTX found in {exe}")
    ours = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, src in enumerate(sources):
            out = os.path.join(tmp, f"{i}.ptx")
            r = subprocess.run(flags + ["-ptx", src, "-o", out], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"same_ptx_sm90.py: compiling {src} to PTX for sm_90 failed:\n{r.stdout}{r.stderr}")
            ours.append(open(out).read())
    a = sorted(body(p) for p in base)
    b = sorted(body(p) for p in ours)
    if a != b:
        print(f"FAIL: {name}: its sm_90 PTX differs from its base build's; tag it `sm90` in "
              f"tests/conformance/programs.txt so that it is also built and tested for sm_90")
        return 1
    print(f"PASS {name}: the sm_90 PTX equals the base build's ({len(b)} module(s)); no second build needed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
