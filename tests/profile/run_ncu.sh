#!/usr/bin/env bash
# tests/profile/run_ncu.sh OUT.csv PROGRAM [ARGS...]: runs a CUDA program (built with nvcc for the
# GPU) under Nsight Compute and writes, per kernel launch, the counters the simulator's profile
# (SYNCLAB_PROFILE, docs/profile.md) gives too. The clocks are left alone (--clock-control none).
# compare.py reads the CSV.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.csv PROGRAM [ARGS...]" >&2; exit 2; }
out=$1
shift
metrics=(
  gpu__time_duration.sum
  smsp__inst_executed.sum
  smsp__thread_inst_executed_per_inst_executed.ratio
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
  smsp__inst_executed_op_shared_ld.sum
  smsp__inst_executed_op_shared_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
)
list=$(IFS=,; echo "${metrics[*]}")
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
ncu --clock-control none --metrics "$list" --csv --page raw "$@" > "$raw"
# Keep the launch's name and shape and the counters asked for (the raw page also lists every
# device attribute).
python3 - "$raw" "$out" "$list" <<'PY'
import csv, sys
raw, out, wanted = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
lines = open(raw).read().splitlines()
start = next((i for i, l in enumerate(lines) if l.startswith('"ID","Process ID"')), None)
if start is None:
    sys.exit("run_ncu.sh: ncu wrote no CSV (its output: %s)" % " / ".join(lines[-5:]))
rows = list(csv.reader(lines[start:]))
keep = [i for i, h in enumerate(rows[0]) if h in ["ID", "Kernel Name", "Block Size", "Grid Size", "Device"] + wanted]
with open(out, "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    for r in rows:
        if len(r) == len(rows[0]):
            w.writerow([r[i] for i in keep])
PY
