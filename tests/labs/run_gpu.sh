#!/usr/bin/env bash
# Runs the labs' graded tests and benchmarks on a GPU, writing logs to LOGDIR:
#
#   tests/labs/run_gpu.sh LOGDIR [BUILD_DIR]
#
# BUILD_DIR (default build-gpu) must hold a GPU build: ./synclab build --gpu, or
# cmake --preset gpu && cmake --build --preset gpu (needs nvcc, not a GPU; the executables can be
# built on another x86-64 machine and copied). For each lab: the graded tests against the
# solutions (all must pass) and against the skeletons (all must fail, but for the cases a lab names
# in bin/gpu/labNN_tests_labs.may-pass), each case in its own
# process; then each lab's benchmark (bench/labNN_*), whose table goes into the lab's README.
# Exit status 0 when every expectation held.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
logdir="${1:-}"
build="${2:-$root/build-gpu}"
[ -n "$logdir" ] || { echo "usage: tests/labs/run_gpu.sh LOGDIR [BUILD_DIR]" >&2; exit 2; }
gpu="$build/bin/gpu"
[ -d "$gpu" ] || { echo "run_gpu.sh: $gpu not found: build with ./synclab build --gpu first" >&2; exit 2; }
mkdir -p "$logdir"
check="$root/tests/labs/check_graded.sh"
status=0
{ command -v nvidia-smi >/dev/null && nvidia-smi -L; date -u; } >"$logdir/device.txt" 2>&1

shopt -s nullglob
for sol in "$gpu"/lab*_tests_solutions; do
  lab="$(basename "$sol" _tests_solutions)"
  echo "== $lab: graded tests on the solutions (expect pass)"
  "$check" --expect pass --log "$logdir/$lab.solutions" -- "$sol" 2>&1 | tee "$logdir/$lab.solutions.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  if [ -x "$gpu/${lab}_tests_labs" ]; then
    # A lab may name cases its skeletons may pass on a GPU (synclab_lab's GPU_SKELETON_MAY_PASS).
    may_pass=()
    [ -f "$gpu/${lab}_tests_labs.may-pass" ] && may_pass=(--may-pass "$(head -n 1 "$gpu/${lab}_tests_labs.may-pass")")
    echo "== $lab: graded tests on the skeletons (expect fail${may_pass[1]:+; may pass: ${may_pass[1]}})"
    "$check" --expect fail "${may_pass[@]}" --log "$logdir/$lab.skeleton" -- "$gpu/${lab}_tests_labs" 2>&1 | tee "$logdir/$lab.skeleton.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  fi
done
for bench in "$gpu"/lab[0-9][0-9]_*; do
  case "$bench" in *_tests_*|*_solutions) continue ;; esac
  name="$(basename "$bench")"
  echo "== benchmark $name"
  "$bench" 2>&1 | tee "$logdir/$name.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
echo "logs in $logdir"
exit $status
