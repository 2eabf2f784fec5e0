#!/usr/bin/env python3
"""Does the simulator's estimated time put each lab's versions in the GPU's order?

  rank.py TIMING.txt GPU_DIR SIM_BIN_DIR [--table OUT.md]

TIMING.txt (lab_timing.txt): lines "GROUP NAME PROGRAM ARGS...". Each run goes through the
simulator (SIM_BIN_DIR/PROGRAM_solutions ARGS --model its --sched rr --memory sc, device profile
h100, SYNCLAB_PROFILE) and its launches' estimated times (docs/profile.md) are added up; the GPU's
time is the sum of gpu__time_duration over the run's kernels in GPU_DIR/NAME-h200.csv (Nsight
Compute on an H200, run_ncu.sh), or NAME-h100.csv for a group measured on an H100 (every run of
a group on one kind of GPU). Per group, Spearman's rank correlation of the two; exit status 1
when a group's is below 0.9.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
from collections import OrderedDict


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):  # ties share the mean of their places
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else 0.0  # (all tied: no order to agree with)


def gpu_time_us(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if "gpu__time_duration.sum" not in header:
        sys.exit(f"rank.py: {path}: no gpu__time_duration.sum column")
    col = header.index("gpu__time_duration.sum")
    return sum(float(r[col].replace(",", "")) for r in rows[2:] if len(r) == len(header)) / 1000.0


def sim_time_us(program, args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sim.jsonl")
        env = dict(os.environ, SYNCLAB_DEVICE="h100", SYNCLAB_PROFILE=out, SYNCLAB_CHECK="none")
        p = subprocess.run([program] + args + ["--model", "its", "--sched", "rr", "--memory", "sc"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            sys.exit(f"rank.py: {program} {' '.join(args)} failed:\n{p.stdout[-2000:]}")
        launches = [json.loads(line) for line in open(out) if line.strip()]
    return sum(j["estimate_us"]["total"] for j in launches), len(launches)


def main(argv):
    args = argv[1:]
    table = None
    if "--table" in args:
        i = args.index("--table")
        table = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    timing, gpu_dir, bin_dir = args
    groups = OrderedDict()
    for line in open(timing):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        group, name, program, *rest = line.split()
        groups.setdefault(group, []).append((name, program, rest))
    out = ["| group | run | GPU | GPU time | estimated (simulator) | GPU rank | estimated rank |",
           "|---|---|---|---:|---:|---:|---:|"]
    summary, bad = [], 0
    for group, runs in groups.items():
        gpu, est = [], []
        kinds = [k for k in ("h200", "h100") if os.path.exists(os.path.join(gpu_dir, f"{runs[0][0]}-{k}.csv"))]
        kind = kinds[0] if kinds else "h200"
        for name, program, rest in runs:
            gpu.append(gpu_time_us(os.path.join(gpu_dir, f"{name}-{kind}.csv")))
            est.append(sim_time_us(os.path.join(bin_dir, f"{program}_solutions"), rest)[0])
        rg, re_ = ranks(gpu), ranks(est)
        for (name, _, rest), g, e, a, b in zip(runs, gpu, est, rg, re_):
            out.append(f"| {group} | {name} | {kind.upper()} | {g:.2f} us | {e:.2f} us | {a:.0f} | {b:.0f} |")
        rho = spearman(gpu, est)
        bad += rho < 0.9
        summary.append(f"{group}: Spearman {rho:.2f} over {len(runs)} versions{'' if rho >= 0.9 else ' (below 0.9)'}")
    text = "\n".join(out) + "\n\n" + "\n".join(summary)
    print(text)
    if table:
        with open(table, "w") as f:
            f.write(text + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
