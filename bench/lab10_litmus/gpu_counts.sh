#!/usr/bin/env bash
# Lab 10's GPU counts: every litmus test of the lab over 65,536 instances x 16 launches (1,048,576
# instances), each role in a randomly chosen block among a quarter as many blocks that stress
# memory, with the reference solutions (bin/gpu/lab10_solutions: task 1's tests and their fixes)
# and with the skeletons (bin/gpu/lab10: task 3's unfixed hand-overs); then task 4's volatile
# hand-over 10,000 times as the skeleton ships it and as the solution fixes it.
# Usage (on a GPU machine, after a gpu-preset build of lab 10): bench/lab10_litmus/gpu_counts.sh OUTDIR [BUILD_DIR]
set -u
out="${1:?usage: gpu_counts.sh OUTDIR [BUILD_DIR]}"
gpu="${2:-build-gpu}/bin/gpu"
mkdir -p "$out"
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%M:%SZ; } >"$out/device.txt" 2>&1
for t in mp sb lb iriw corr 2+2w mp_fixed sb_fixed lb_fixed iriw_fixed 2+2w_fixed mp_same_block mp_cross_block; do
  "$gpu/lab10_solutions" litmus --test "$t" --instances 65536 --launches 16
done >"$out/litmus-solutions.txt" 2>&1
for t in mp_same_block mp_cross_block; do
  "$gpu/lab10" litmus --test "$t" --instances 65536 --launches 16
done >"$out/litmus-skeleton.txt" 2>&1
{ echo "== skeleton (volatile flag, no fence)"; "$gpu/lab10" handoff --runs 10000
  echo "== solution (release/acquire)"; "$gpu/lab10_solutions" handoff --runs 10000; } >"$out/handoff.txt" 2>&1
cat "$out/device.txt"
grep -E "GPU,|weak outcome|summed|wrong in" "$out"/litmus-*.txt "$out/handoff.txt"
