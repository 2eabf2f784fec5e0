#!/usr/bin/env python3
"""Does the simulator's estimated time put each lab's versions in the GPU's order?

  rank.py TIMING.txt GPU_DIR SIM_BIN_DIR [--table OUT.md] [--counters TOL]

TIMING.txt (lab_timing.txt): lines "GROUP NAME PROGRAM ARGS...". Each run goes through the
simulator (SIM_BIN_DIR/PROGRAM_solutions ARGS --model its --sched rr --memory sc, device profile
h100, SYNCLAB_PROFILE) and its launches' estimated times (docs/profile.md) are added up; the GPU's
time is the sum of gpu__time_duration over the run's kernels in GPU_DIR/NAME-h200.csv (Nsight
Compute on an H200, run_ncu.sh), or NAME-h100.csv for a group measured on an H100 (every run of
a group on one kind of GPU). Where what a version costs is not one kernel's time (lab 08's round
trips: the host's side, copies and launches), GPU_DIR/NAME-h200.host says where the GPU's time
is instead, in a benchmark's logs (read_host_time). Per group, Spearman's rank correlation of the
two (tied values share the mean of their places; estimates within EST_TIE of each other are
tied); exit status 1 when a group's is below 0.9. --counters TOL: each run timed by a CSV also has
its counters per request compared with the CSV's (compare.py --per-request TOL --repeats, with
known_differences.txt), from the same simulator run; a run that differs fails too.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import OrderedDict


# Estimates this close (relative) are one estimate: two versions whose estimates differ only in
# rounding (lab 06's two locked pushes: 596.7822 and 596.7812 us) are a tie, not an order.
EST_TIE = 1e-4


def ranks(values, rel_tie=0.0):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):  # ties share the mean of their places
        j = i
        while j + 1 < len(order) and values[order[j + 1]] - values[order[i]] <= rel_tie * abs(values[order[j + 1]]):
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b, rel_tie_b=0.0):
    ra, rb = ranks(a), ranks(b, rel_tie_b)
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


def read_host_time(path):
    """A version's GPU time from a benchmark's logs, as a .host file names them:

      log PATH         (one line per log, relative to the repository root; one run of the benchmark each)
      row LABEL        the table row whose first number is this version's median, in microseconds
      times N          what the simulated run repeats it (its --rounds)

    The time is the median over the logs of the row's median, times N. Every log must have the row."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    logs, row, times = [], None, None
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        if key == "log":
            logs.append(os.path.join(root, value.strip()))
        elif key == "row":
            row = value.strip()
        elif key == "times":
            times = float(value)
        else:
            sys.exit(f"rank.py: {path}:{n}: unknown key '{key}' (log, row or times)")
    if not logs or row is None or times is None:
        sys.exit(f"rank.py: {path}: needs at least one 'log', a 'row' and 'times'")
    medians = []
    for log in logs:
        if not os.path.exists(log):
            sys.exit(f"rank.py: {path}: no log {log}")
        cells = [[c.strip() for c in l.strip().strip("|").split("|")] for l in open(log) if l.startswith("|")]
        found = [c for c in cells if c and c[0] == row]
        if len(found) != 1:
            sys.exit(f"rank.py: {path}: {log} has {len(found)} rows '{row}' (want 1)")
        try:
            medians.append(float(found[0][1]))
        except (IndexError, ValueError):
            sys.exit(f"rank.py: {path}: {log}: row '{row}' has no number after its label")
    return statistics.median(medians) * times


def sim_time_us(program, args, counters=None):
    """The run's estimated time (the sum over its launches). With counters =
    (TOL, GPU.csv, NAME): also compare.py's verdict on its counters per request against the CSV's,
    as (passed, output)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sim.jsonl")
        env = dict(os.environ, SYNCLAB_DEVICE="h100", SYNCLAB_PROFILE=out, SYNCLAB_CHECK="none")
        p = subprocess.run([program] + args + ["--model", "its", "--sched", "rr", "--memory", "sc"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            sys.exit(f"rank.py: {program} {' '.join(args)} failed:\n{p.stdout[-2000:]}")
        launches = [json.loads(line) for line in open(out) if line.strip()]
        verdict = None
        if counters:
            tol, csv_path, name = counters
            here = os.path.dirname(os.path.abspath(__file__))
            c = subprocess.run([sys.executable, os.path.join(here, "compare.py"), out, csv_path, "--per-request",
                                str(tol), "--repeats", "--known", os.path.join(here, "known_differences.txt"), "--run",
                                name], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            verdict = (c.returncode == 0, c.stdout)
    return sum(j["estimate_us"]["total"] for j in launches), verdict


def main(argv):
    args = argv[1:]
    table, counters = None, None
    if "--table" in args:
        i = args.index("--table")
        table = args[i + 1]
        del args[i:i + 2]
    if "--counters" in args:
        i = args.index("--counters")
        counters = float(args[i + 1])
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
    checked_counters, bad_counters = 0, []
    for group, runs in groups.items():
        gpu, est = [], []
        kinds = [(k, ext) for k in ("h200", "h100") for ext in ("csv", "host")
                 if os.path.exists(os.path.join(gpu_dir, f"{runs[0][0]}-{k}.{ext}"))]
        kind, ext = kinds[0] if kinds else ("h200", "csv")
        for name, program, rest in runs:
            where = os.path.join(gpu_dir, f"{name}-{kind}.{ext}")
            if not os.path.exists(where):
                sys.exit(f"rank.py: group {group}: no {where} (every version of a group is timed the same way)")
            gpu.append(gpu_time_us(where) if ext == "csv" else read_host_time(where))
            check = (counters, where, name) if counters is not None and ext == "csv" else None
            t, verdict = sim_time_us(os.path.join(bin_dir, f"{program}_solutions"), rest, check)
            est.append(t)
            if verdict is not None:
                checked_counters += 1
                if not verdict[0]:
                    bad_counters.append(f"{name}:\n{verdict[1]}")
        rg, re_ = ranks(gpu), ranks(est, EST_TIE)
        for (name, _, rest), g, e, a, b in zip(runs, gpu, est, rg, re_):
            out.append(f"| {group} | {name} | {kind.upper()} | {g:.2f} us | {e:.2f} us | {a:g} | {b:g} |")
        rho = spearman(gpu, est, EST_TIE)
        bad += rho < 0.9
        summary.append(f"{group}: Spearman {rho:.2f} over {len(runs)} versions{'' if rho >= 0.9 else ' (below 0.9)'}")
    if counters is not None:
        summary.append(f"counters per request (compare.py --per-request {counters:g} --repeats): "
                       f"{checked_counters - len(bad_counters)} of {checked_counters} runs agree with Nsight Compute's")
        summary.extend(bad_counters)
        bad += len(bad_counters)
    text = "\n".join(out) + "\n\n" + "\n".join(summary)
    print(text)
    if table:
        with open(table, "w") as f:
            f.write(text + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
