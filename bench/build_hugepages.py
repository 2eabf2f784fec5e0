#!/usr/bin/env python3
"""Compile time with and without lib/libsynclab_hugepages.so, side by side in one sitting.

Takes a sample of the compile commands of a configured build (ninja -t commands): nvcc compiles
through synclab-nvcc and C++ compiles through the compiler launcher. Each round runs the whole
sample twice, once with the preload and once without (the order alternating between rounds),
each compile into a scratch directory and with ccache off, and sums per kind the wall time, the
user and system CPU time and the minor page faults of the compilers (getrusage of the children).

usage: bench/build_hugepages.py [--build build] [--nvcc 16] [--cxx 8] [--rounds 3] [--seed 1]
Prints a Markdown table; bench/results/build_hugepages.md keeps the runs of record.
"""
import argparse
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time


def die(msg):
    print(f"build_hugepages.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def sample_commands(build, n_nvcc, n_cxx, seed):
    out = subprocess.run(["ninja", "-C", build, "-t", "commands"], capture_output=True, text=True)
    if out.returncode != 0:
        die(f"ninja -C {build} -t commands failed: {out.stderr.strip()}")
    nvcc, cxx = [], []
    for line in out.stdout.splitlines():
        if " -c " not in line:
            continue
        if "bin/synclab-nvcc " in line:
            nvcc.append(line)
        elif re.search(r"(^|\s)/\S*/(c\+\+|g\+\+) ", line):
            cxx.append(line)
    rng = random.Random(seed)
    if len(nvcc) < n_nvcc or len(cxx) < n_cxx:
        die(f"{build} has {len(nvcc)} nvcc and {len(cxx)} C++ compiles; asked for {n_nvcc} and {n_cxx}")
    return rng.sample(sorted(nvcc), n_nvcc), rng.sample(sorted(cxx), n_cxx)


def prepare(cmd, scratch, i, hugepages, lib):
    """The command with its outputs in scratch/, without ccache, with or without the preload."""
    cmd = re.sub(r" -o \S+", f" -o {scratch}/{i}.o", cmd)
    cmd = re.sub(r" -MF \S+", f" -MF {scratch}/{i}.d", cmd)
    cmd = re.sub(r"\S*/ccache ", "", cmd)
    cmd = re.sub(r" LD_PRELOAD=\S+", "", cmd)
    env = dict(os.environ, SYNCLAB_NO_CCACHE="1", CCACHE_DISABLE="1")
    env.pop("LD_PRELOAD", None)
    if hugepages:
        if "bin/synclab-nvcc " not in cmd:
            env["LD_PRELOAD"] = lib
    else:
        env["SYNCLAB_NO_HUGEPAGES"] = "1"
    return cmd, env


def run_set(cmds, scratch, hugepages, lib):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    for i, c in enumerate(cmds):
        cmd, env = prepare(c, scratch, i, hugepages, lib)
        r = subprocess.run(["bash", "-c", cmd], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        if r.returncode != 0:
            die(f"a compile failed ({'with' if hugepages else 'without'} the preload):\n{cmd}\n{r.stderr[-2000:]}")
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return dict(wall=wall, user=after.ru_utime - before.ru_utime, sys=after.ru_stime - before.ru_stime,
                faults=after.ru_minflt - before.ru_minflt)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--nvcc", type=int, default=16, help="nvcc compiles in the sample (default 16)")
    ap.add_argument("--cxx", type=int, default=8, help="C++ compiles in the sample (default 8)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    lib = os.path.abspath(os.path.join(a.build, "lib", "libsynclab_hugepages.so"))
    if not os.path.isfile(lib):
        die(f"{lib} does not exist: configure the build first (cmake --preset default)")
    nvcc, cxx = sample_commands(a.build, a.nvcc, a.cxx, a.seed)
    totals = {(k, h): dict(wall=0.0, user=0.0, sys=0.0, faults=0) for k in ("nvcc", "C++") for h in (False, True)}
    with tempfile.TemporaryDirectory(prefix="build_hugepages.") as scratch:
        for r in range(a.rounds):
            order = (False, True) if r % 2 == 0 else (True, False)
            for h in order:
                for kind, cmds in (("nvcc", nvcc), ("C++", cxx)):
                    m = run_set(cmds, scratch, h, lib)
                    for key in m:
                        totals[(kind, h)][key] += m[key]
                    print(f"round {r + 1}, {kind}, {'with' if h else 'without'}: {m['wall']:.1f} s wall, "
                          f"{m['user']:.1f} s user, {m['sys']:.1f} s system, {m['faults']} faults", file=sys.stderr)
    print(f"{a.rounds} rounds of {a.nvcc} nvcc and {a.cxx} C++ compiles (seed {a.seed}), each round with and without")
    print()
    print("| compiles | preload | wall (s) | user (s) | system (s) | minor faults | wall, with / without |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for kind in ("nvcc", "C++"):
        off, on = totals[(kind, False)], totals[(kind, True)]
        for h, t in ((False, off), (True, on)):
            ratio = f"**{on['wall'] / off['wall']:.2f}**" if h else ""
            print(f"| {kind} | {'with' if h else 'without'} | {t['wall']:.1f} | {t['user']:.1f} | {t['sys']:.1f} | "
                  f"{t['faults']:,} | {ratio} |")


if __name__ == "__main__":
    main()
