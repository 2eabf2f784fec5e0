#!/usr/bin/env bash
# tests/profile/run_pending_gpu.sh OUTDIR: the GPU runs that tests/profile/lab_timing_unranked.txt
# still waits for, in one batch for a lent GPU (run it from the repository root there):
#   - lab 06's two locked pushes, 4.7% apart on an H200 with equal estimates: the placement probe
#     (bench/lab06_lists/lock_place.cu) times both with their words at 24 and at 12 addresses, and
#     the three pushes run again under Nsight Compute (a second sitting);
#   - lab 08's round trips (task 3's protocol and the one-word variant, 100 rounds) under Nsight
#     Compute, and plainly (the harness's own GPU timing), beside the bench's host-clock times that
#     lab_timing.txt's lab 08 group uses;
#   - lab 10's task 5 kernels under Nsight Compute (the one lab whose kernels have no counters
#     compared yet): last-block for lab_runs.txt (exact counts), look-back, barrier and queue for
#     lab_runs_spin.txt (they spin: per-request ratios).
# Needs, built on any machine with the toolkit:
#   nvcc -O3 -std=c++17 -arch=sm_90 -o build/devexp/lock_place bench/lab06_lists/lock_place.cu
#   cmake --preset gpu && ninja -C build-gpu lab06_solutions_gpu lab08_solutions_gpu lab10_solutions_gpu
# CSVs as tests/profile/gpu-results/ names them (NAME-h100.csv or NAME-h200.csv) go to OUTDIR.
set -u
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
for d in /usr/local/cuda/nsight-compute* /opt/nvidia/nsight-compute/*; do
  [ -x "$d/ncu" ] && export PATH=$d:$PATH
done
date -u +"%Y-%m-%d %H:%M UTC" | tee "$out/when.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu.txt"
ncu --version | tail -1 | tee "$out/ncu.txt"
gpu=build-gpu/bin/gpu
probe=build/devexp/lock_place
"$probe" --lists 4 --places 24 --runs 7 >"$out/lock_place_l4.txt" 2>&1
tail -2 "$out/lock_place_l4.txt"
"$probe" --lists 1 --places 12 --runs 7 >"$out/lock_place_l1.txt" 2>&1
tail -1 "$out/lock_place_l1.txt"
kind=h100
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && kind=h200
for k in locked second lockfree; do
  a=(locked --kernel "$k")
  [ "$k" = lockfree ] && a=(lockfree)
  tests/profile/run_ncu.sh "$out/lab06_push_$k-$kind.csv" "$gpu/lab06_solutions" "${a[@]}" --blocks 16 --threads 128 \
    --lists 4 >"$out/ncu_lab06_$k.log" 2>&1 || tail -5 "$out/ncu_lab06_$k.log"
done
for m in persistent word; do
  tests/profile/run_ncu.sh "$out/lab08_roundtrip_$m-$kind.csv" "$gpu/lab08_solutions" roundtrip --method "$m" \
    --rounds 100 >"$out/ncu_lab08_$m.log" 2>&1 || tail -5 "$out/ncu_lab08_$m.log"
  "$gpu/lab08_solutions" roundtrip --method "$m" --rounds 100 >"$out/plain_lab08_$m.txt" 2>&1
  tail -2 "$out/plain_lab08_$m.txt"
done
for p in last-block look-back barrier queue; do
  tests/profile/run_ncu.sh "$out/lab10_pattern_${p//-/_}-$kind.csv" "$gpu/lab10_solutions" pattern --pattern "$p" \
    --blocks 8 --runs 1 >"$out/ncu_lab10_$p.log" 2>&1 || tail -5 "$out/ncu_lab10_$p.log"
done
python3 - "$out" <<'P'
import csv, glob, os, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    rows = list(csv.reader(open(f)))[2:]
    t = [float(x[5].replace(",", "")) / 1000 for x in rows]
    print(f"{os.path.basename(f)}: {len(t)} launches, {sum(t):.1f} us in all")
P
