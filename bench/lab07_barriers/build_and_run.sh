#!/usr/bin/env bash
# Builds lab07_barriers with nvcc alone and runs it, without building the rest of SyncLab:
#
#   bench/lab07_barriers/build_and_run.sh OUTDIR [lab07_barriers options...]
#
# Writes OUTDIR/lab07_barriers (the program), OUTDIR/build.log (nvcc's resource report),
# OUTDIR/device.txt (nvidia-smi, date) and OUTDIR/lab07_barriers.txt (what it printed).
# The barriers are the reference solutions' (solutions/07-global-barriers), compiled in.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?usage: build_and_run.sh OUTDIR [options]}"
shift
mkdir -p "$out"
nvcc="${SYNCLAB_CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
"$nvcc" -std=c++17 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -Xptxas -v -I"$root/common/include" \
  -I"$root/labs/07-global-barriers" \
  "$root/bench/lab07_barriers/lab07_barriers.cu" -o "$out/lab07_barriers" >"$out/build.log" 2>&1 ||
  { cat "$out/build.log"; exit 1; }
{ command -v nvidia-smi >/dev/null && nvidia-smi -L; date -u; } >"$out/device.txt" 2>&1
"$out/lab07_barriers" "$@" 2>&1 | tee "$out/lab07_barriers.txt"
