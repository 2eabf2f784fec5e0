#!/usr/bin/env bash
# tests/profile/counted_launches.sh LAB07: SYNCLAB_PROFILE writes one line per launch of the command,
# and none for a launch the program counts for itself (synclab::sim::count): `lab07 simple` runs its
# barrier kernel once, then once more to count its atomics (it still prints that count); the
# profile has the first launch alone. Its twin, `lab07 explicit` (a launch per round, nothing
# counted), has every launch.
set -euo pipefail
lab07=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "counted_launches.sh: FAILED: $*"; exit 1; }
run() {  # OUT.jsonl ARGS...: the command under its, rr, sc, with the profile written to OUT
  local out=$1
  shift
  SYNCLAB_PROFILE=$out SYNCLAB_CHECK=none "$lab07" "$@" --model its --sched rr --memory sc > "$out.txt" 2>&1 ||
    { cat "$out.txt"; fail "$lab07 $* exited with status $?"; }
}
run "$tmp/simple.jsonl" simple --blocks 4 --threads 64 --rounds 3
grep -q "atomic operations (its, rr): " "$tmp/simple.jsonl.txt" || { cat "$tmp/simple.jsonl.txt"; fail "lab07 simple printed no count of its atomics"; }
n=$(wc -l < "$tmp/simple.jsonl")
[ "$n" -eq 1 ] || fail "lab07 simple: $n profile lines, want 1 (the counted launch left out)"
run "$tmp/explicit.jsonl" explicit --blocks 4 --threads 64 --rounds 3
n=$(wc -l < "$tmp/explicit.jsonl")
[ "$n" -eq 3 ] || fail "lab07 explicit --rounds 3: $n profile lines, want 3 (a launch per round)"
echo "ok: the counted launch is left out of the profile (lab07 simple: 1 line), every other launch is in it (lab07 explicit: 3)"
