#!/usr/bin/env bash
# Grades submissions of tests/grader/cases/ on a GPU (--backend gpu: nvcc, the real device, and
# compute-sanitizer memcheck and racecheck on every case that passes), writing each results.json
# and a summary to OUTDIR:
#
#   tests/grader/run_gpu.sh OUTDIR [BUILD_DIR] [CASE...]
#
# BUILD_DIR (default build-gpu) must hold a GPU build with the grader and the labs' graded tests
# (./synclab build --gpu; it can be built on another x86-64 machine and copied to the same path).
# SYNCLAB_GRADE_NO_SANITIZER=1: plain GPU runs only. The CASEs default to the reference solutions, the skeleton and the lucky racer of lab 01, and
# the reference and the slow submission of lab 03. The results go to tests/grader/gpu-results/.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-}"
build="${2:-$root/build-gpu}"
shift 2 2>/dev/null || shift $#
[ -n "$out" ] || { echo "usage: tests/grader/run_gpu.sh OUTDIR [BUILD_DIR] [CASE...]" >&2; exit 2; }
grader="$build/bin/synclab-grade"
[ -x "$grader" ] || { echo "run_gpu.sh: $grader not found: build with ./synclab build --gpu" >&2; exit 2; }
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(reference-01 lucky-racer-01 skeleton-01 reference-03 slow-03)
mkdir -p "$out"
work="$(mktemp -d)"
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
{
  command -v nvidia-smi >/dev/null && nvidia-smi -L
  date -u
  cuda="${SYNCLAB_CUDA_HOME:-/usr/local/cuda}"
  "$cuda/bin/nvcc" --version | tail -n 2
  sanitizer="$(command -v compute-sanitizer || echo "$cuda/bin/compute-sanitizer")"
  [ -x "$sanitizer" ] && "$sanitizer" --version | head -n 2
} >"$out/device.txt" 2>&1

# shellcheck source=case_submission.sh
. "$root/tests/grader/case_submission.sh"
status=0
for name in "${cases[@]}"; do
  dir="$root/tests/grader/cases/$name"
  spec="$dir/case.txt"
  [ -f "$spec" ] || { echo "run_gpu.sh: no case $name" >&2; status=1; continue; }
  sub="$work/$name"
  case_submission "$root" "$dir" "$build/grade" "$sub" || { status=1; continue; }
  lab="$case_lab" timeout="$case_timeout" hidden="$case_hidden"
  args=(grade --lab "$lab" --submission "$sub" --results "$out/$name.json" --backend gpu)
  [ -n "$timeout" ] || timeout="${SYNCLAB_GRADE_TIMEOUT:-}"  # (the environment may set one for all)
  [ -n "$timeout" ] && args+=(--timeout "$timeout")
  [ -n "$hidden" ] && args+=(--hidden "$root/tests/grader/$hidden")
  [ -n "$case_student" ] && args+=(--student "$case_student")
  [ -n "${SYNCLAB_GRADE_NO_SANITIZER:-}" ] && args+=(--no-sanitizer)
  echo "== $name: synclab-grade ${args[*]}"
  start=$(date +%s)
  "$grader" "${args[@]}" 2>&1 | tee "$out/$name.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  echo "== $name: $(( $(date +%s) - start )) s"
done
exit $status
