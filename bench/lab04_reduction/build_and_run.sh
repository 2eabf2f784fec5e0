#!/usr/bin/env bash
# Builds lab04_reduction with nvcc alone (the flags of the GPU build, SYNCLAB_GPU_NVCC_FLAGS in
# cmake/SynclabCuda.cmake) and runs it, without building the rest of SyncLab:
#
#   bench/lab04_reduction/build_and_run.sh OUTDIR [lab04_reduction options...]
#
# Writes OUTDIR/lab04_reduction (the program), OUTDIR/build.log (nvcc's resource report),
# OUTDIR/device.txt (nvidia-smi, date) and OUTDIR/lab04_reduction.txt (what it printed).
# In a full GPU build (./synclab build --gpu) the same program is build-gpu/bin/gpu/lab04_reduction,
# and tests/labs/run_gpu.sh runs it with the other labs' benchmarks.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?usage: build_and_run.sh OUTDIR [options]}"
shift
mkdir -p "$out"
nvcc="${SYNCLAB_CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
# fast.cu from solutions/ (the reference) where the tree has it, else from labs/ (yours).
sources="${SYNCLAB_LAB04_BENCH_SOURCES:-solutions}"
[ -d "$root/$sources/04-reductions" ] || sources=labs
"$nvcc" -std=c++17 -lineinfo -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 \
  -Xptxas -v -I"$root/common/include" -I"$root/labs/04-reductions" "$root/bench/lab04_reduction/lab04_reduction.cu" \
  "$root/$sources/04-reductions/fast.cu" \
  -o "$out/lab04_reduction" >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
{ command -v nvidia-smi >/dev/null && nvidia-smi -L; date -u; } >"$out/device.txt" 2>&1
"$out/lab04_reduction" "$@" 2>&1 | tee "$out/lab04_reduction.txt"
