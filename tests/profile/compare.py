#!/usr/bin/env python3
"""Compares the simulator's performance counters with a GPU's.

  compare.py SIM.jsonl NCU.csv [--table OUT.md] [--only KERNEL,...] [--known FILE --run NAME]

SIM.jsonl: what SYNCLAB_PROFILE=FILE.jsonl wrote (one JSON line per launch); NCU.csv: what
run_ncu.sh wrote on the GPU for the same program and input. Launches are matched by kernel name
and order (the n-th launch of a kernel with the n-th). For each launch it compares global load and
store requests and sectors, shared load and store wavefronts, shared bank conflicts and global
atomic requests, which must be equal. Shown beside the GPU's but not compared: shared-memory
instructions (the GPU also counts warps whose lanes were all predicated off) and active threads
per warp instruction (the simulator issues PTX instructions, the GPU SASS ones).
--per-request TOL: compare per request instead (global sectors per request, shared bank conflicts
per wavefront), equal within TOL: for kernels that spin, whose totals depend on the schedule.
--repeats (with --per-request): the GPU ran the simulator's launches over again (a harness's GPU
runs, --runs N): the simulator's k-th launch of a kernel (of n) is compared with the GPU's k-th,
(k+n)-th, ... together, their counts added before the ratios are taken.
--known FILE (known_differences.txt) with --run NAME: the differences FILE lists for run NAME,
with their reason, are shown and do not count. Exit status 1 when a count differs, 2 on bad input.
"""
import csv
import json
import re
import sys
from collections import defaultdict


def base_name(name):
    """'void ns::transpose<(int)1>(const float *, float *, int)' -> 'transpose<1>'."""
    name = re.sub(r"\((?:unsigned )?\w+\)(?=-?\d)", "", name)  # template arguments written as casts: (Scheme)6
    # an anonymous namespace: "(anonymous namespace)::" here, "<unnamed>::" in ncu (its CSV drops the "<")
    name = re.sub(r"\(anonymous namespace\)::|<?unnamed>::", "", name)
    depth, cut = 0, len(name)
    for i, c in enumerate(name):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            cut = i
            break
    name = name[:cut].strip()
    if name.startswith("void "):
        name = name[5:]
    # ncu names a kernel without its namespace
    head = name.split("<", 1)[0]
    if "::" in head:
        name = name[head.rindex("::") + 2:]
    return name.replace(" ", "")


def read_sim(path):
    launches = defaultdict(list)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                j = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"compare.py: {path}:{n}: not a JSON line ({e})")
            launches[base_name(j["name"])].append(j)
    return launches


def read_ncu(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        sys.exit(f'compare.py: {path}: no ncu CSV header (a line starting "ID",) found')
    rows = list(csv.reader(lines[start:]))
    header, body = rows[0], rows[2:]  # rows[1]: units
    launches = defaultdict(list)
    for r in body:
        if len(r) != len(header):
            continue
        d = dict(zip(header, r))
        launches[base_name(d["Kernel Name"])].append(d)
    return launches


def num(s):
    s = s.replace(",", "")
    return float(s) if s not in ("", "n/a") else 0.0


# Why shared-memory instruction counts may differ: where the PTX branches around a shared access
# (`if (t < d) s[...] = ...`), the GPU's code often predicates the instruction instead, and a warp
# whose lanes are all predicated off still executes it (no wavefront, no data).
PREDICATED = "the GPU also counts warps whose lanes were all predicated off"

FIELDS = [
    # (label, sim value, ncu metric(s))
    ("global ld requests", lambda j: j["global_ld_sectors"]["requests"], ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]),
    ("global ld sectors", lambda j: j["global_ld_sectors"]["units"], ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]),
    ("global st requests", lambda j: j["global_st_sectors"]["requests"], ["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]),
    ("global st sectors", lambda j: j["global_st_sectors"]["units"], ["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]),
    ("shared ld requests", lambda j: j["shared_ld_wavefronts"]["requests"], ["smsp__inst_executed_op_shared_ld.sum"], False),
    ("shared ld wavefronts", lambda j: j["shared_ld_wavefronts"]["units"], ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]),
    ("shared ld bank conflicts", lambda j: max(0, j["shared_ld_wavefronts"]["units"] - j["shared_ld_wavefronts"]["ideal"]),
     ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]),
    ("shared st requests", lambda j: j["shared_st_wavefronts"]["requests"], ["smsp__inst_executed_op_shared_st.sum"], False),
    ("shared st wavefronts", lambda j: j["shared_st_wavefronts"]["units"], ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]),
    ("shared st bank conflicts", lambda j: max(0, j["shared_st_wavefronts"]["units"] - j["shared_st_wavefronts"]["ideal"]),
     ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]),
    ("global atomic requests", lambda j: j["global_atomics"]["requests"],
     ["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"]),
]


def ratio(a, b):
    return a / b if b else 0.0


# --per-request: what does not depend on how often a spin loop went round.
RATIO_FIELDS = [
    ("global ld sectors per request",
     lambda j: ratio(j["global_ld_sectors"]["units"], j["global_ld_sectors"]["requests"]),
     lambda g: ratio(num(g["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]),
                     num(g["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]))),
    ("global st sectors per request",
     lambda j: ratio(j["global_st_sectors"]["units"], j["global_st_sectors"]["requests"]),
     lambda g: ratio(num(g["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]),
                     num(g["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]))),
    ("shared ld bank conflicts per wavefront",
     lambda j: ratio(max(0, j["shared_ld_wavefronts"]["units"] - j["shared_ld_wavefronts"]["ideal"]),
                     j["shared_ld_wavefronts"]["units"]),
     lambda g: ratio(num(g["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]),
                     num(g["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]))),
    ("shared st bank conflicts per wavefront",
     lambda j: ratio(max(0, j["shared_st_wavefronts"]["units"] - j["shared_st_wavefronts"]["ideal"]),
                     j["shared_st_wavefronts"]["units"]),
     lambda g: ratio(num(g["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]),
                     num(g["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]))),
]


def main(argv):
    args = argv[1:]
    table, only = None, None
    if "--table" in args:
        i = args.index("--table")
        table = args[i + 1]
        del args[i:i + 2]
    per_request = None
    if "--per-request" in args:
        i = args.index("--per-request")
        per_request = float(args[i + 1])
        del args[i:i + 2]
    repeats = "--repeats" in args
    if repeats:
        args.remove("--repeats")
        if per_request is None:
            sys.exit("compare.py: --repeats compares ratios: give --per-request TOL too")
    known, run = {}, None
    if "--known" in args:
        i = args.index("--known")
        for line in open(args[i + 1]):
            line = line.strip()
            if line and not line.startswith("#"):
                head, _, why = line.partition(":")
                parts = head.split()
                known[(parts[0], parts[1], " ".join(parts[2:]))] = why.strip()
        del args[i:i + 2]
    if "--run" in args:
        i = args.index("--run")
        run = args[i + 1]
        del args[i:i + 2]
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    sim, gpu = read_sim(args[0]), read_ncu(args[1])
    names = [n for n in gpu if only is None or n in only]
    if not names:
        sys.exit(f"compare.py: no kernel of {args[1]} to compare")
    bad, compared = 0, 0
    out = ["| kernel | count | simulator | GPU (ncu) | |", "|---|---|---:|---:|---|"]
    for name in names:
        if name not in sim:
            print(f"{name}: launched on the GPU but not in {args[0]}")
            bad += 1
            continue
        rows = gpu[name]
        if repeats and len(sim[name]) and len(rows) > len(sim[name]) and len(rows) % len(sim[name]) == 0:
            n = len(sim[name])
            print(f"{name}: the GPU ran the simulator's {n} launch(es) {len(rows) // n} times: their counts added")
            rows = [{m: str(sum(num(r[m]) for r in rows[k::n])) if m.startswith(("l1tex__", "smsp__")) and m.endswith(".sum") else v
                     for m, v in rows[k].items()} for k in range(n)]
        if len(rows) != len(sim[name]):
            print(f"{name}: launched {len(rows)} times on the GPU, {len(sim[name])} on the simulator")
            bad += 1
        for k, (g, s) in enumerate(zip(rows, sim[name])):
            label = name if len(rows) == 1 else f"{name} #{k + 1}"
            if per_request is not None:
                for field, simv, gpuv in RATIO_FIELDS:
                    sv, gv = simv(s), gpuv(g)
                    if sv == 0 and gv == 0:
                        continue
                    same = abs(sv - gv) <= per_request
                    why = known.get((run, name, field))
                    if why is not None and not same:
                        out.append(f"| {label} | {field} | {sv:.2f} | {gv:.2f} | known: {why} |")
                        continue
                    compared += 1
                    bad += not same
                    out.append(f"| {label} | {field} | {sv:.2f} | {gv:.2f} | {'within ' + str(per_request) if same else '**differs**'} |")
                continue
            for field, simv, metrics, *compare in FIELDS:
                if not all(m in g for m in metrics):
                    continue
                gv = sum(num(g[m]) for m in metrics)
                sv = simv(s)
                if gv == 0 and sv == 0:
                    continue
                same = abs(gv - sv) < 0.5
                if compare and not compare[0]:
                    out.append(f"| {label} | {field} | {sv:,.0f} | {gv:,.0f} | (not compared{'' if same else ': ' + PREDICATED}) |")
                    continue
                why = known.get((run, name, field))
                if why is not None and not same:
                    out.append(f"| {label} | {field} | {sv:,.0f} | {gv:,.0f} | known: {why} |")
                    continue
                compared += 1
                bad += not same
                out.append(f"| {label} | {field} | {sv:,.0f} | {gv:,.0f} | {'equal' if same else '**differs**'} |")
            ratio = "smsp__thread_inst_executed_per_inst_executed.ratio"
            if ratio in g:
                sv = s["thread_instructions"] / max(1, s["warp_instructions"])
                out.append(f"| {label} | active threads per warp instruction | {sv:.2f} | {num(g[ratio]):.2f} | (not compared) |")
    text = "\n".join(out)
    print(text)
    print(f"\n{compared} counts compared, {bad} differ")
    if table:
        with open(table, "w") as f:
            f.write(text + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
