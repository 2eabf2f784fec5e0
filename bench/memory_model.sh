#!/usr/bin/env bash
# bench/memory_model.sh: the whole generated litmus suite against the relaxed memory model, the
# run that CI's sample (memory.relaxed.generated) stands in for.
#
#   bench/memory_model.sh [--seeds N] [--instances K] [--sc-seeds N] [--jobs J] [--out DIR]
#                         [--build DIR | --tool FILE]
#
# Generates the suite (`synclab-litmus generate`, its defaults: 2,500 tests of 2-4 threads), runs
# every test up to N times (default 20,000; each launch holding K copies of it, default 8; a test's
# seeds stop once every weak outcome PTX allows has shown: --until-seen, so the coverage is that of
# N seeds) under SYNCLAB_MEMORY=relaxed with the oracle checking each launch's execution
# (--check) and, for each weak outcome PTX allows that did not show, the rule of the model that
# keeps it out (--gaps); then every test under sc (only sequentially consistent outcomes may show).
# --jobs J (default: the number of cores) splits the suite into J parts run side by side, each
# test in one part (the outcomes and counts do not depend on J). --tool FILE: run that
# synclab-litmus (built elsewhere) instead of building it in DIR. Writes DIR/generated.litmus,
# DIR/relaxed.txt, DIR/sc.txt and DIR/summary.md (the numbers for bench/results/memory_model.md).
# Exit status 1 when a run showed an outcome the model forbids.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seeds=20000
instances=8
sc_seeds=100
jobs=$(nproc 2>/dev/null || echo 1)
out=$here/build/bench-memory-model
build=$here/build
tool=
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --instances) instances=$2; shift 2 ;;
    --sc-seeds) sc_seeds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --tool) tool=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "bench/memory_model.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $seeds =~ ^[0-9]+$ && $seeds -gt 0 ]] || { echo "bench/memory_model.sh: --seeds wants a positive number" >&2; exit 2; }
[[ $instances =~ ^[0-9]+$ && $instances -gt 0 ]] || { echo "bench/memory_model.sh: --instances wants a positive number" >&2; exit 2; }
[[ $sc_seeds =~ ^[0-9]+$ && $sc_seeds -gt 0 ]] || { echo "bench/memory_model.sh: --sc-seeds wants a positive number" >&2; exit 2; }
[[ $jobs =~ ^[0-9]+$ && $jobs -gt 0 ]] || { echo "bench/memory_model.sh: --jobs wants a positive number" >&2; exit 2; }
mkdir -p "$out"
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit (with local changes)"; fi
if [ -z "$tool" ]; then
  echo "building synclab-litmus in $build ..."
  cmake --build "$build" --target synclab-litmus > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
  tool=$build/bin/synclab-litmus
fi
[ -x "$tool" ] || { echo "bench/memory_model.sh: --tool $tool: no such program" >&2; exit 2; }
"$tool" generate --out "$out/generated.litmus"
tests=$(grep -c '^litmus ' "$out/generated.litmus")
# The suite in $jobs parts, test by test in turn (neighbouring tests of the generator cost alike).
rm -f "$out"/part.*.litmus "$out"/part.*.relaxed.txt "$out"/part.*.sc.txt
awk -v n="$jobs" -v dir="$out" 'BEGIN{k=-1} /^litmus /{k=(k+1)%n} {print > (dir "/part." (k < 0 ? 0 : k) ".litmus")}' "$out/generated.litmus"
parts=$(ls "$out"/part.*.litmus)
# Runs the parts side by side and joins their outputs: each part's per-test lines, then one summary
# line and one table of the weak outcomes not seen, summed over the parts, in the tool's format.
run_parts() {  # run_parts NAME ARGS...: writes $out/NAME.txt; returns 1 when a part failed
  local name=$1; shift
  local pids=() rc=0 p
  for p in $parts; do
    "$tool" run "$p" "$@" > "${p%.litmus}.$name.txt" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  awk '
    /^[0-9]+ tests run \(/ {
      line=$0; tests+=$1; sub(/^[^(]*\(/, "", line); head=line; sub(/\).*$/, "", head)
      if (match($0, /\), [0-9]+ failed/)) failed+=substr($0, RSTART+3, RLENGTH-10)
      if (match($0, /seen: [0-9]+ of [0-9]+/)) { split(substr($0, RSTART+6, RLENGTH-6), a, " of "); seen+=a[1]; allowed+=a[2] }
      if (match($0, /; [0-9]+ tests with a host thread/)) host+=substr($0, RSTART+2, RLENGTH-2)+0
      if (match($0, /; [0-9]+ outcomes out of the model/)) gapo+=substr($0, RSTART+2, RLENGTH-2)+0
      intable=0; next
    }
    /^weak outcomes not seen, by what keeps the model from them:/ { intable=1; next }
    intable && /^  +[0-9]+  / { n=$1; rule=$0; sub(/^ +[0-9]+  /, "", rule); by[rule]+=n; next }
    { intable=0; print }
    END {
      printf "%d tests run (%s), %d failed", tests, head, failed
      if (allowed) printf "; weak outcomes seen: %d of %d (%.1f%%)", seen, allowed, 100*seen/allowed
      if (host) printf "; %d tests with a host thread not run", host
      if (gapo) printf "; %d outcomes out of the model'"'"'s reach as their tests'"'"' `gap` lines say", gapo
      printf "\n"
      k=0; for (r in by) keys[++k]=r
      if (k) {
        print "weak outcomes not seen, by what keeps the model from them:"
        for (i=2; i<=k; i++) { v=keys[i]; j=i-1; while (j>0 && keys[j] > v) { keys[j+1]=keys[j]; j-- } keys[j+1]=v }
        for (i=1; i<=k; i++) printf "  %6d  %s\n", by[keys[i]], keys[i]
      }
    }' $(for p in $parts; do echo "${p%.litmus}.$name.txt"; done) > "$out/$name.txt"
  return $rc
}
echo "running $tests tests x up to $seeds seeds x $instances instances under relaxed in $jobs parts side by side, each test until every weak outcome PTX allows has shown (the oracle checks every run; about an hour and a half of one core's time at the defaults) ..."
start=$(date +%s)
set +e
run_parts relaxed --seeds "$seeds" --instances "$instances" --until-seen --check --gaps --quiet
relaxed_rc=$?
mid=$(date +%s)
echo "running $tests tests x $sc_seeds seeds under sc ..."
run_parts sc --memory sc --seeds "$sc_seeds" --quiet
sc_rc=$?
set -e
end=$(date +%s)
[ "${SYNCLAB_KEEP_PARTS:-0}" = 1 ] || rm -f "$out"/part.*
relaxed_line=$(grep -E '^[0-9]+ tests run' "$out/relaxed.txt" | tail -1)
sc_line=$(grep -E '^[0-9]+ tests run' "$out/sc.txt" | tail -1)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "commit: $commit"
  echo "suite: synclab-litmus generate (defaults), $tests tests, in $jobs parts side by side"
  echo
  echo "relaxed, up to $seeds seeds x $instances instances each, --until-seen --check --gaps ($((mid - start)) s): $relaxed_line"
  sed -n '/^weak outcomes not seen, by what keeps the model from them:/,$p' "$out/relaxed.txt"
  echo
  echo "sc, $sc_seeds seeds each ($((end - mid)) s): $sc_line"
} > "$out/summary.md"
cat "$out/summary.md"
[ $relaxed_rc -eq 0 ] && [ $sc_rc -eq 0 ] || { echo "FAILED: see $out/relaxed.txt and $out/sc.txt (lines starting FAIL)"; exit 1; }
