#!/usr/bin/env bash
# tests/profile/run_compare.sh [--run NAME] [--per-request TOL [--repeats]] GPU.csv PROGRAM [ARGS...]: runs PROGRAM (a simulator
# build) with SYNCLAB_PROFILE and compares its counters with what Nsight Compute measured for the
# same program and input on a GPU (GPU.csv, written there by run_ncu.sh). Fails when a count
# differs, except the differences known_differences.txt lists for run NAME.
set -euo pipefail
run=
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --run) run=$2; shift 2 ;;
    --per-request) extra+=(--per-request "$2"); shift 2 ;;
    --repeats) extra+=(--repeats); shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--run NAME] GPU.csv PROGRAM [ARGS...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
gpu=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SYNCLAB_PROFILE=$tmp/sim.jsonl SYNCLAB_CHECK=none "$@" > "$tmp/out.txt" 2>&1 || {
  echo "run_compare.sh: $* failed:" >&2
  tail -20 "$tmp/out.txt" >&2
  exit 1
}
python3 "$here/compare.py" "$tmp/sim.jsonl" "$gpu" --known "$here/known_differences.txt" --run "${run:-none}" "${extra[@]}"
