#!/usr/bin/env bash
# bench/sim_throughput.sh: one sitting of the simulator's throughput against the goals of the
# issue "Speed" (at least 1e9 thread-instructions per second unchecked on one core; the race
# checker at most 2x the unchecked time; the relaxed memory model at most 2.5x), then where the
# time goes: a `perf record` profile of each configuration on one kernel.
#
#   bench/sim_throughput.sh [--tool BIN [--ptx FILE]] [--repeat N] [--rounds R] [--profile KERNEL|none]
#                           [--out FILE]
#
# For each warp model (its, lockstep) and configuration (unchecked; --checks race; --memory
# relaxed), R invocations of `sim_throughput --repeat N --clock cpu` (each the median of N
# launches, thread CPU time), taken in turns (unchecked, race, relaxed, unchecked, ...) so that a
# change in the machine's load falls on all three alike. A row is the median of the R
# invocations; the ratios divide the unchecked median's throughput by the configuration's, per
# kernel. Then, unless --profile none, `perf record -g` over `sim_throughput --only KERNEL` (its) in
# each configuration and the functions with the most samples (self time). The report goes to
# stdout and to FILE (default build/bench-sim-throughput.md). The tool (default
# build/bin/sim_throughput) is a RelWithDebInfo build: function names come from its symbols; --ptx
# names the kernels' PTX for a copy of it whose build directory is gone (sim_throughput --ptx).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tool=$here/build/bin/sim_throughput
repeat=5
rounds=3
profile_kernel=scan_hillis
out=$here/build/bench-sim-throughput.md
ptx=()
while [ $# -gt 0 ]; do
  case $1 in
    --tool) tool=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --profile) profile_kernel=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --ptx) ptx=(--ptx "$2"); shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sim_throughput.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
[ -x "$tool" ] || { echo "sim_throughput.sh: no program at $tool (cmake --build build --target sim_throughput)" >&2; exit 2; }
case $profile_kernel in none|reduce_tree|scan_hillis|lock_counter) ;;
  *) echo "sim_throughput.sh: --profile takes reduce_tree, scan_hillis, lock_counter or none" >&2; exit 2 ;;
esac
if [ "$profile_kernel" != none ]; then
  # perf (linux-perf): installed as root, else named (or pass --profile none).
  "$here/scripts/bootstrap" --profilers --quiet ||
    { echo "sim_throughput.sh: the profiler is missing (above); or pass --profile none" >&2; exit 2; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

configs=("unchecked:" "race:--checks race" "relaxed:--memory relaxed")
total=$((2 * rounds * ${#configs[@]}))
done_runs=0
for model in its lockstep; do
  for r in $(seq 1 "$rounds"); do
    for c in "${configs[@]}"; do
      name=${c%%:*} args=${c#*:}
      # shellcheck disable=SC2086
      "$tool" "${ptx[@]}" --model "$model" $args --repeat "$repeat" --clock cpu --json "$work/$model-$name-$r.json" >/dev/null
      done_runs=$((done_runs + 1))
      echo "sim_throughput.sh: $done_runs of $total invocations ($model, $name, round $r)" >&2
    done
  done
done

{
  echo "# sim_throughput, one sitting"
  echo
  commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')
  git -C "$here" diff --quiet HEAD -- 2>/dev/null || commit="$commit with uncommitted changes"
  echo "$(date -u +%Y-%m-%dT%H:%MZ), the tree at $commit (tool: $tool), $(nproc) cores,"
  echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "\`bench/sim_throughput.sh --repeat $repeat --rounds $rounds --profile $profile_kernel\`: each row the median of $rounds"
  echo "invocations of \`sim_throughput --repeat $repeat --clock cpu\` (thread CPU time), taken in turns."
  echo
  python3 - "$work" "$rounds" <<'PY'
import json, os, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
goals = {"unchecked": None, "race": 2.0, "relaxed": 2.5}
print("| model | kernel | unchecked thr-instr/s | race thr-instr/s | race slowdown | relaxed thr-instr/s | relaxed slowdown |")
print("|---|---|---:|---:|---:|---:|---:|")
met = {"unchecked": 0, "race": 0, "relaxed": 0}
rows = 0
for model in ("its", "lockstep"):
    runs = {}
    for cfg in goals:
        per = {}
        for r in range(1, rounds + 1):
            j = json.load(open(os.path.join(work, f"{model}-{cfg}-{r}.json")))
            for k in j["kernels"]:
                if not k["correct"]:
                    sys.exit(f"sim_throughput.sh: {model} {cfg}: {k['kernel']} gave a wrong result")
                per.setdefault(k["kernel"], []).append(k["thread_instructions_per_second"])
        runs[cfg] = {k: statistics.median(v) for k, v in per.items()}
    for kernel, base in runs["unchecked"].items():
        race, relaxed = runs["race"][kernel], runs["relaxed"][kernel]
        rows += 1
        met["unchecked"] += base >= 1e9
        met["race"] += base / race <= 2.0
        met["relaxed"] += base / relaxed <= 2.5
        print(f"| {model} | {kernel.split(' (')[0]} | {base:.3e} | {race:.3e} | {base / race:.2f}x | {relaxed:.3e} | "
              f"{base / relaxed:.2f}x |")
print()
print(f"Goals met in {met['unchecked']} of {rows} rows (unchecked at least 1e9), {met['race']} of {rows} (race at most "
      f"2x), {met['relaxed']} of {rows} (relaxed at most 2.5x).")
PY
} | tee "$out"

[ "$profile_kernel" = none ] && exit 0
{
  echo
  echo "## Where the time goes: $profile_kernel, its"
  echo
  echo "\`perf record -g\` over \`sim_throughput --model its --only $profile_kernel --repeat 3\`, per configuration; the"
  echo "functions with the most samples of their own (self), at least 1.5% each."
  for c in "${configs[@]}"; do
    name=${c%%:*} args=${c#*:}
    # shellcheck disable=SC2086
    perf record -q -g -o "$work/$name.perf" -- "$tool" "${ptx[@]}" --model its $args --only "$profile_kernel" --repeat 3 \
      >/dev/null 2>"$work/$name.perf.log" || { cat "$work/$name.perf.log" >&2; exit 1; }
    echo
    echo "### $name${args:+ ($args)}"
    echo
    echo '```'
    perf report -i "$work/$name.perf" --no-children --sort symbol --percent-limit 1.5 --stdio 2>/dev/null |
      grep -E '^ +[0-9]+\.[0-9]+%' | sed -E 's/ +\[\.\] / /; s/^ +//' | cut -c1-150
    echo '```'
  done
} | tee -a "$out"
