#!/usr/bin/env python3
"""The toolkit's own C++ (sim/, common/, viz/, grader/src, grader/guard) passes the tree's .clang-tidy.

    clang_tidy.py SOURCE_ROOT BUILD_DIR [--record] [--jobs N]

Each file of the build's compile_commands.json under those folders is checked with clang-tidy
(about 5 s a file; 120 files). A file whose inputs are exactly those of a file that passed before
is not checked again: tests/docs/clang_tidy.verified keeps, for each file that passed, a SHA-256 of
everything its verdict depends on: .clang-tidy, the versions of clang-tidy and of the compiler, the
compile command (with this tree's and this build's paths taken out), and the text of the file and
of every header of this tree it includes, directly or not. Any change to one of them checks the
file again. --record checks every file that is not in the record and, when all pass, rewrites the
record (run it before committing a change to product code: a stale record only costs time).
Fails naming each file with a finding and clang-tidy's words.
"""
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

FOLDERS = ("sim/", "common/", "viz/", "grader/src/", "grader/guard/")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
RECORD = "tests/docs/clang_tidy.verified"
# clang before 15 has no _Float16 on x86-64 (GCC has): it cannot parse the files that include the
# simulator's register values (half_t), so with Debian 12's clang-tidy 14 those are left out, named.
FLOAT16_HEADER = "sim/exec/values.h"


def fail(msg):
    print(f"clang_tidy.py: FAILED: {msg}")
    sys.exit(1)


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except OSError:
        return ""
    return " ".join(l.strip() for l in out.splitlines() if "version" in l.lower())


def main():
    args = sys.argv[1:]
    record = "--record" in args
    jobs = os.cpu_count() or 2
    if "--jobs" in args:
        jobs = int(args[args.index("--jobs") + 1])
    pos = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--jobs")]
    if len(pos) != 2:
        print(__doc__)
        sys.exit(2)
    root, build = (os.path.realpath(p) for p in pos)
    tidy = shutil.which("clang-tidy") or shutil.which("clang-tidy-14")
    if not tidy:
        fail("clang-tidy is not installed (scripts/bootstrap --style installs it; ./synclab test does)")
    db_path = os.path.join(build, "compile_commands.json")
    try:
        with open(db_path) as f:
            db = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {db_path} ({e}): configure the build first (./synclab build)")
    config_path = os.path.join(root, ".clang-tidy")
    try:
        with open(config_path, "rb") as f:
            config = f.read()
    except OSError:
        fail(f"{config_path} is missing")
    versions = tool_version([tidy, "--version"]) + " | " + tool_version(["c++", "--version"])

    entries = {}
    for e in db:
        path = os.path.realpath(os.path.join(e.get("directory", ""), e["file"]))
        rel = os.path.relpath(path, root)
        if rel.startswith(FOLDERS) and rel.endswith((".cpp", ".cc", ".c")):
            entries[rel] = e
    if not entries:
        fail(f"{db_path} names no file of {', '.join(FOLDERS)}")

    text_cache = {}

    def text(path):
        if path not in text_cache:
            try:
                with open(path, "rb") as f:
                    text_cache[path] = f.read()
            except OSError:
                text_cache[path] = None
        return text_cache[path]

    def include_dirs(e):
        words = shlex.split(e["command"]) if "command" in e else e.get("arguments", [])
        dirs = []
        for i, w in enumerate(words):
            d = None
            if w in ("-I", "-isystem", "-iquote") and i + 1 < len(words):
                d = words[i + 1]
            elif w.startswith("-I"):
                d = w[2:]
            if d:
                d = os.path.realpath(os.path.join(e.get("directory", ""), d))
                if d == root or d.startswith(root + os.sep) or d == build or d.startswith(build + os.sep):
                    dirs.append(d)
        return words, dirs

    def closure(rel, e):
        """The headers of this tree that the file includes, directly or not (with the file itself)."""
        words, dirs = include_dirs(e)
        seen, todo = [], [os.path.join(root, rel)]
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.append(p)
            t = text(p)
            if t is None:
                continue
            for inc in INCLUDE.findall(t.decode("utf-8", "replace")):
                for d in [os.path.dirname(p)] + dirs:
                    c = os.path.realpath(os.path.join(d, inc))
                    if os.path.isfile(c):
                        todo.append(c)
                        break
        return words, seen

    def key(rel, e):
        words, files = closure(rel, e)
        h = hashlib.sha256()
        h.update(config)
        h.update(versions.encode())
        # The command with the tree's and the build's paths taken out (a clone elsewhere matches).
        h.update(" ".join(words).replace(build, "<build>").replace(root, "<src>").encode())
        for p in sorted(files):
            t = text(p)
            name = p.replace(build, "<build>").replace(root, "<src>")
            h.update(name.encode() + b"\0" + (t if t is not None else b"(none)") + b"\0")
        return h.hexdigest()

    major = re.search(r"version (\d+)", versions)
    no_float16 = major is not None and int(major.group(1)) < 15
    left_out = []
    if no_float16:
        header = os.path.join(root, FLOAT16_HEADER)
        for rel in sorted(entries):
            if header in closure(rel, entries[rel])[1]:
                left_out.append(rel)
        for rel in left_out:
            del entries[rel]
    keys = {rel: key(rel, e) for rel, e in sorted(entries.items())}
    known = set()
    rec_path = os.path.join(root, RECORD)
    if os.path.exists(rec_path):
        with open(rec_path) as f:
            for line in f:
                w = line.split()
                if len(w) == 2 and not line.startswith("#"):
                    known.add((w[0], w[1]))
    todo = [rel for rel in keys if (keys[rel], rel) not in known]
    if left_out:
        print(f"{len(left_out)} files left out: they include {FLOAT16_HEADER} (_Float16), which clang-tidy "
              f"before 15 cannot parse on this machine: {', '.join(left_out)}")
    print(f"{len(keys)} files; {len(keys) - len(todo)} passed before with the same inputs ({RECORD}); "
          f"checking {len(todo)} with {os.path.basename(tidy)}, {jobs} at a time ...", flush=True)

    def check(rel):
        e = entries[rel]
        r = subprocess.run([tidy, "-p", build, "--quiet", os.path.join(root, rel)], capture_output=True, text=True,
                           cwd=root)
        findings = [l for l in r.stdout.splitlines() if re.search(r"(warning|error):", l)]
        return rel, r.returncode, findings, r.stdout + r.stderr

    bad = []
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        for rel, rc, findings, out in ex.map(check, todo):
            done += 1
            if rc != 0 or findings:
                bad.append(rel)
                print(f"  {rel}:")
                shown = findings or out.strip().splitlines()[-20:]
                for l in shown[:40]:
                    print("    " + l.replace(root + "/", ""))
            if done % 10 == 0 or done == len(todo):
                print(f"  {done}/{len(todo)} checked", flush=True)
    if record:  # every file that passes (one file's verdict does not depend on another's)
        passed = sorted(rel for rel in keys if rel not in bad)
        with open(rec_path, "w") as f:
            f.write("# Files that pass .clang-tidy, by a SHA-256 of their inputs (tests/docs/clang_tidy.py --record)\n")
            for rel in passed:
                f.write(f"{keys[rel]}  {rel}\n")
        print(f"wrote {RECORD} ({len(passed)} files)")
    if bad:
        fail(f"{len(bad)} of {len(keys)} files have clang-tidy findings (above): fix them, or if a check is "
             "wrong for this code, say why in .clang-tidy or in a NOLINT(check) comment on the line")
    print(f"ok: {len(keys)} files pass .clang-tidy ({len(todo)} checked now, {len(keys) - len(todo)} from the record)")


if __name__ == "__main__":
    main()
