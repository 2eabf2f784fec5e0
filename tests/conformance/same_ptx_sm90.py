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

The PTX is a function of its inputs, so a verdict once reached holds while they stay the same:
same_ptx_sm90.verified (beside this script) lists, for each program found equal, a SHA-256 of
everything its PTX depends on (the toolkit's `nvcc --version`, the flags with this tree's paths
taken out, synclab-nvcc and its include folder, the sources and every header they include that
is found beside them or in an -I folder, followed through those headers). A program whose key
is listed passes without compiling; any change to one of those inputs gives another key, and the
check compiles and compares as above. After a
PASS that compiled, the output ends with the line to add to the list ("verified: NAME KEY");
tests/conformance/record_same_ptx.sh rewrites the whole list. SYNCLAB_SM90_RECHECK=1 compiles
whatever the list says.
"""
import hashlib
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


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RECORD = os.path.join(HERE, "same_ptx_sm90.verified")


def included_files(path, dirs, seen):
    """`path` and the files it includes, recursively: by quoted name found beside it or in `dirs`,
    by <name> found in `dirs` (the -I folders; the toolkit's own headers are keyed by its version)."""
    if path in seen or not os.path.isfile(path):
        return
    seen.add(path)
    text = open(path, "rb").read().decode("latin-1")
    for quote, name in re.findall(r'^\s*#\s*include\s*([<"])([^">]+)[">]', text, re.M):
        for d in ([os.path.dirname(path)] if quote == '"' else []) + dirs:
            cand = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(cand):
                included_files(cand, dirs, seen)
                break


def key_of(name, compiler, flags, sources):
    """SHA-256 of what the sm_90 PTX of `sources` depends on; paths relative to the tree (or the
    build folder of `compiler`), so that another checkout of the same commit gets the same key."""
    build = os.path.dirname(os.path.dirname(os.path.abspath(compiler)))
    nvcc = os.path.realpath(compiler)

    def rel(p):
        p = os.path.abspath(p)
        for base, tag in ((build, "<build>"), (ROOT, "<root>")):
            if p == base or p.startswith(base + os.sep):
                return tag + p[len(base):]
        return p

    h = hashlib.sha256()
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True)
    h.update(version.stdout.encode())
    h.update(("\0".join([name] + [f.replace(build, "<build>").replace(ROOT, "<root>") for f in flags])).encode())
    inc_dirs = [f[2:] for f in flags if f.startswith("-I") and len(f) > 2]
    own = os.path.join(os.path.dirname(nvcc), "synclab-nvcc-include")  # first on nvcc's path
    files = {nvcc}
    for dirpath, _, names in os.walk(own):
        files.update(os.path.join(dirpath, n) for n in names)
    for src in sources:
        included_files(os.path.abspath(src), [own] + inc_dirs, files)
    for f in sorted(files, key=rel):
        h.update(rel(f).encode() + b"\0")
        with open(f, "rb") as fh:
            h.update(fh.read())
        h.update(b"\0")
    return h.hexdigest()


def recorded(name, key):
    if os.environ.get("SYNCLAB_SM90_RECHECK") == "1" or not os.path.isfile(RECORD):
        return False
    for line in open(RECORD):
        if line.split() == [name, key]:
            return True
    return False


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
    key = key_of(name, cmd[0], flags[1:], sources)
    if recorded(name, key):
        print(f"PASS {name}: the sm_90 PTX equals the base build's (found so for these very inputs: "
              f"{os.path.relpath(RECORD, ROOT)}; SYNCLAB_SM90_RECHECK=1 compiles again)")
        return 0
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
    print(f"verified: {name} {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
