#!/usr/bin/env bash
# Builds lab05_scan with nvcc alone (the flags of the GPU build, SYNCLAB_GPU_NVCC_FLAGS in
# cmake/SynclabCuda.cmake) and runs it, without building the rest of SyncLab:
#
#   bench/lab05_scan/build_and_run.sh OUTDIR [lab05_scan options...]
#
# Writes OUTDIR/lab05_scan (the program), OUTDIR/build.log (nvcc's resource report),
# OUTDIR/device.txt (nvidia-smi, date) and OUTDIR/lab05_scan.txt (what it printed).
# In a full GPU build (./synclab build --gpu) the same program is build-gpu/bin/gpu/lab05_scan.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?usage: build_and_run.sh OUTDIR [options]}"
shift
mkdir -p "$out"
nvcc="${SYNCLAB_CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
if [ ! -x "$out/lab05_scan" ]; then
  "$nvcc" -std=c++17 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 \
    -Xptxas -v -I"$root/common/include" "$root/bench/lab05_scan/lab05_scan.cu" \
    -o "$out/lab05_scan" >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
fi
{ command -v nvidia-smi >/dev/null && nvidia-smi -L; date -u; } >"$out/device.txt" 2>&1
"$out/lab05_scan" "$@" 2>&1 | tee "$out/lab05_scan.txt"
