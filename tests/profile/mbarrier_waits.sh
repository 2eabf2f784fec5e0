#!/usr/bin/env bash
# profile.mbarrier_waits: the estimate leaves out a wait that polls an mbarrier, also where
# mbarrier.try_wait waits inside the instruction (run again without advancing) between the rounds
# of its loop. Lab 09's validation chain, 15 hand-overs between warps: with mbarriers, the
# instructions the estimate counts may exceed those of the named-barrier version (whose waits
# issue nothing) by at most one wait round and an arrival per warp (16 warps x 16 instructions),
# under schedules that poll different numbers of times.
#
#   mbarrier_waits.sh LAB09_PROGRAM
set -uo pipefail
prog="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
counted() {  # counted SCHEME SCHED SEED: "instructions spin_rounds" of the chain's launch
  rm -f "$tmp/p.jsonl"
  SYNCLAB_DEVICE=h100 SYNCLAB_PROFILE="$tmp/p.jsonl" SYNCLAB_CHECK=none SYNCLAB_SEED="$3" \
    "$prog" chain --scheme "$1" --model its --sched "$2" --memory sc >"$tmp/out.txt" 2>&1 ||
    { cat "$tmp/out.txt"; echo "FAIL: lab09 chain --scheme $1 --sched $2"; exit 1; }
  python3 -c '
import json, sys
j = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
print(j["estimate_us"]["instructions"], j["spin_rounds"])' "$tmp/p.jsonl"
}
read -r base _ <<<"$(counted warp_barr rr 1)"
fail=0
rounds=()
for s in "rr 1" "random 3" "random 8"; do
  read -r n r <<<"$(counted mbarrier $s)"
  rounds+=("$r")
  if [ $((n - base)) -le $((16 * 16)) ]; then
    echo "ok:   mbarrier ($s): $n instructions counted, $base for the named barriers ($r lane rounds waited)"
  else
    echo "FAIL: mbarrier ($s): $n instructions counted, more than $base + 256 ($r lane rounds waited)"
    fail=1
  fi
done
[ "${rounds[0]}" != "${rounds[1]}" ] || [ "${rounds[0]}" != "${rounds[2]}" ] ||
  { echo "FAIL: the schedules waited alike (${rounds[*]}): the check says nothing"; fail=1; }
exit $fail
