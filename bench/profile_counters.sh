#!/usr/bin/env bash
# bench/profile_counters.sh [BUILD]: the tables of bench/results/profile_counters.md from the
# committed GPU results (tests/profile/gpu-results/, Nsight Compute on an H200) and this tree's
# simulator build (default build/): every run of tests/profile/patterns.cu and lab_runs.txt
# compared count by count (compare.py), those of lab_runs_spin.txt per request, then the estimated
# times of lab_timing.txt ranked against
# the GPU's (rank.py). Prints markdown; exit status 1 when a count differs or a group ranks below 0.9.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
prof=$here/tests/profile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
compare() {  # NAME PROGRAM ARGS...
  local name=$1
  shift
  SYNCLAB_PROFILE=$tmp/$name.jsonl SYNCLAB_CHECK=none "$@" > /dev/null 2>&1
  python3 "$prof/compare.py" "$tmp/$name.jsonl" "$prof/gpu-results/$name-h200.csv" \
    --known "$prof/known_differences.txt" --run "$name" || status=1
}
echo "### tests/profile/patterns.cu (20 access patterns)"
echo
compare patterns "$build/bin/sim/profile_patterns"
while read -r name prog args; do
  echo
  echo "### $name: \`$prog $args\`"
  echo
  # shellcheck disable=SC2086
  compare "$name" "$build/bin/sim/${prog}_solutions" $args --model its --sched rr --memory sc
done < <(grep '^[a-z]' "$prof/lab_runs.txt")
while read -r name prog args; do
  echo
  echo "### $name (spins; per request): \`$prog $args\`"
  echo
  # shellcheck disable=SC2086
  SYNCLAB_PROFILE=$tmp/$name.jsonl SYNCLAB_CHECK=none "$build/bin/sim/${prog}_solutions" $args --model its --sched rr \
    --memory sc > /dev/null 2>&1
  python3 "$prof/compare.py" "$tmp/$name.jsonl" "$prof/gpu-results/$name-h200.csv" --per-request 0.05 || status=1
done < <(grep '^[a-z]' "$prof/lab_runs_spin.txt")
echo
echo "### Estimated times (lab_timing.txt)"
echo
python3 "$prof/rank.py" "$prof/lab_timing.txt" "$prof/gpu-results" "$build/bin/sim" || status=1
exit $status
