#!/usr/bin/env bash
# The litmus tests on a real GPU, under memory stress, against the PTX model's allowed outcomes
# (bench/results/litmus_gpu.md). Three steps; the first needs the project's CPU build, the last a GPU.
#
#   bench/litmus_gpu/run.sh emit DIR [BUILD_DIR]   write DIR/litmus_gpu.cu: the published tests,
#                                                  tests/memory/model-rules.litmus and 300 generated
#                                                  tests (synclab-litmus generate --count 300 --seed 7)
#   bench/litmus_gpu/run.sh build DIR              nvcc -O3 for sm_90 -> DIR/litmus_gpu (where nvcc is)
#   bench/litmus_gpu/run.sh run DIR OUT NAME [OPTIONS]
#                                                  on the GPU machine: device facts -> OUT/device.txt,
#                                                  the run -> OUT/NAME.log (per test) and OUT/NAME.csv
#                                                  (every outcome's count)
#   bench/litmus_gpu/run.sh tune DIR OUT           a short run of the MP/SB/LB/IRIW tests under several
#                                                  stress settings -> OUT/tune.txt
#
# OPTIONS go to the GPU program (DIR/litmus_gpu --help). The run in bench/results/litmus_gpu.md:
#   run.sh run DIR OUT stress --time 290 --per-test 2 --block 128 --seed 2
#   run.sh run DIR OUT nostress --time 190 --per-test 2 --stress-cap 0 --pre 0 --stress-frac 0 --seed 3
# The program exits 1 when an outcome the PTX model forbids showed (it prints FORBIDDEN lines).
set -u
cmd="${1:?usage: run.sh emit|build|run|tune DIR ...}"
dir="${2:?usage: run.sh $cmd DIR ...}"
here="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$dir" && dir="$(cd "$dir" && pwd)"
cd "$here" || exit 1  # test locations print relative to the repository
case "$cmd" in
  emit)
    build="${3:-build}"
    gen="$(realpath --relative-to=. "$dir/generated-300-seed7.litmus")"
    "$build/bin/synclab-litmus" generate --count 300 --seed 7 --out "$gen" || exit 1
    "$build/bin/synclab-litmus-gpu" emit tests/memory/published/*.litmus tests/memory/model-rules.litmus "$gen" \
      --out "$dir/litmus_gpu.cu"
    ;;
  build)
    nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
    "$nvcc" -O3 -gencode arch=compute_90,code=sm_90 -o "$dir/litmus_gpu" "$dir/litmus_gpu.cu"
    ;;
  run)
    out="${3:?usage: run.sh run DIR OUT NAME [OPTIONS]}"
    name="${4:?usage: run.sh run DIR OUT NAME [OPTIONS]}"
    shift 4
    mkdir -p "$out"
    { echo "== $name"
      nvidia-smi -L
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
      date -u +%Y-%m-%dT%H:%M:%SZ
      (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null) | tail -2
      echo "options: $*"; } >>"$out/device.txt" 2>&1
    tail -7 "$out/device.txt"
    set -o pipefail
    "$dir/litmus_gpu" --csv "$out/$name.csv" --quiet "$@" 2>&1 | tee "$out/$name.log" |
      grep -E "^(NOT RUN|SUMMARY|FORBIDDEN|  .*FORBIDDEN|  HARNESS|device|params|progress: [0-9]*00/)"
    ;;
  tune)
    out="${3:?usage: run.sh tune DIR OUT}"
    mkdir -p "$out"
    tests='alloy.MP,alloy.dekkers,isa.LB,lean.IRIW,alloy.two_plus_two2_rlx,MP+rlx.gpu_po_rlx.gpu+rlx.gpu_po_rlx.gpu+gpu'
    tests="$tests,SB+rlx.gpu_po_rlx.gpu+rlx.gpu_po_rlx.gpu+gpu,LB+rlx.gpu_po_rlx.gpu+rlx.gpu_po_rlx.gpu+gpu"
    tests="$tests,IRIW+rlx.gpu+rlx.gpu_po_rlx.gpu+rlx.gpu+rlx.gpu_po_rlx.gpu+gpu,isa.Atomicity2"
    while read -r name opts; do
      [ -z "$name" ] && continue
      echo "== $name: $opts"
      "$dir/litmus_gpu" --only "$tests" --per-test "${TUNE_SECONDS:-1}" --quiet $opts 2>&1 | grep -E "^(RESULT|SUMMARY|  .*FORBIDDEN)"
    done >"$out/tune.txt" <<'CONFIGS'
none --stress-cap 0 --pre 0 --stress-frac 0
none-nobarrier --stress-cap 0 --pre 0 --stress-frac 0 --no-barrier
default
stride1 --stride 1
stride1-hot --stride 1 --lines 4 --stress-frac 0.5
hot-lines --lines 4 --stress-frac 0.5
long-stress --pre 1024 --stress-cap 16384
no-barrier --no-barrier
block128 --block 128
stride8-pattern0 --stride 8 --pattern 0
CONFIGS
    cat "$out/tune.txt"
    ;;
  *) echo "run.sh: emit, build, run or tune" >&2; exit 2 ;;
esac
