#!/usr/bin/env bash
# bench/memory_model.sh: the whole generated litmus suite against the relaxed memory model, the
# run that CI's sample (memory.relaxed.generated) stands in for.
#
#   bench/memory_model.sh [--seeds N] [--instances K] [--aim A] [--sc-seeds N] [--jobs J] [--out DIR]
#                         [--build DIR | --tool FILE] [--resume]
#
# Generates the suite (`synclab-litmus generate`, its defaults: 2,500 tests of 2-4 threads), runs
# every test up to N times (default 20,000; each launch holding K copies of it, default 8; a test's
# seeds stop once every weak outcome PTX allows has shown and at least 1,000 ran: --until-seen, so
# the coverage is that of N seeds) under SYNCLAB_MEMORY=relaxed with the oracle checking each launch's execution
# (--check) and, for each weak outcome PTX allows that did not show, the rule of the model that
# keeps it out (--gaps); then every test under sc (only sequentially consistent outcomes may show).
# --aim A (default 20,000; 0: none): then up to A more seeds for each test whose weak outcomes did
# not all show, each copy aimed at one of them, and A seeds for each test whose `exists` PTX
# forbids, aimed at it (synclab-litmus run --aim); the report counts the outcomes seen only when
# aimed apart. The defaults, 20,000 seeds and 20,000 aimed, are the fixed budget the coverage of
# record is measured in (bench/results/memory_model.md).
# --jobs J (default: the number of cores): synclab-litmus runs the tests in J processes side by
# side (the outcomes and counts do not depend on J). --tool FILE: run that
# synclab-litmus (built elsewhere) instead of building it in DIR. Writes DIR/generated.litmus,
# DIR/relaxed.txt, DIR/sc.txt and DIR/summary.md (the numbers for bench/results/memory_model.md).
# Each test's result is kept in DIR/relaxed.results and DIR/sc.results as it ends (synclab-litmus
# run --save); --resume: go on from those files after a run cut short (same tool, same options),
# instead of starting over. The times in summary.md are then those of the last part alone.
# Exit status 1 when a run showed an outcome the model forbids.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seeds=20000
instances=8
sc_seeds=100
aim=20000
jobs=$(nproc 2>/dev/null || echo 1)
out=$here/build/bench-memory-model
build=$here/build
tool=
resume=0
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --instances) instances=$2; shift 2 ;;
    --sc-seeds) sc_seeds=$2; shift 2 ;;
    --aim) aim=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --tool) tool=$2; shift 2 ;;
    --resume) resume=1; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "bench/memory_model.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $seeds =~ ^[0-9]+$ && $seeds -gt 0 ]] || { echo "bench/memory_model.sh: --seeds wants a positive number" >&2; exit 2; }
[[ $instances =~ ^[0-9]+$ && $instances -gt 0 ]] || { echo "bench/memory_model.sh: --instances wants a positive number" >&2; exit 2; }
[[ $sc_seeds =~ ^[0-9]+$ && $sc_seeds -gt 0 ]] || { echo "bench/memory_model.sh: --sc-seeds wants a positive number" >&2; exit 2; }
[[ $jobs =~ ^[0-9]+$ && $jobs -gt 0 ]] || { echo "bench/memory_model.sh: --jobs wants a positive number" >&2; exit 2; }
[[ $aim =~ ^[0-9]+$ ]] || { echo "bench/memory_model.sh: --aim wants a number of seeds (0: none)" >&2; exit 2; }
aim_args=()
[ "$aim" -gt 0 ] && aim_args=(--aim "$aim")
mkdir -p "$out"
[ $resume -eq 1 ] || rm -f "$out/relaxed.results" "$out/sc.results"
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
echo "running $tests tests x up to $seeds seeds x $instances instances under relaxed in $jobs processes side by side, each test until every weak outcome PTX allows has shown (the oracle checks every run; about three hours of one core's time at the defaults: 88 minutes on 2 cores) ..."
start=$(date +%s)
set +e
"$tool" run "$out/generated.litmus" --seeds "$seeds" --instances "$instances" --until-seen "${aim_args[@]}" --check \
  --gaps --quiet --jobs "$jobs" --save "$out/relaxed.results" > "$out/relaxed.txt" 2>&1
relaxed_rc=$?
if [ $relaxed_rc -eq 2 ]; then  # (refused before running: a bad option, or a --save file of another run)
  cat "$out/relaxed.txt"; echo "bench/memory_model.sh: synclab-litmus refused the run (above)" >&2; exit 2
fi
mid=$(date +%s)
echo "running $tests tests x $sc_seeds seeds under sc ..."
"$tool" run "$out/generated.litmus" --memory sc --seeds "$sc_seeds" --quiet --jobs "$jobs" --save "$out/sc.results" > "$out/sc.txt" 2>&1
sc_rc=$?
set -e
end=$(date +%s)
relaxed_line=$(grep -E '^[0-9]+ tests run' "$out/relaxed.txt" | tail -1)
sc_line=$(grep -E '^[0-9]+ tests run' "$out/sc.txt" | tail -1)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "commit: $commit"
  echo "suite: synclab-litmus generate (defaults), $tests tests, in $jobs processes side by side"
  echo
  echo "relaxed, up to $seeds seeds x $instances instances each, --until-seen ${aim_args[*]} --check --gaps ($((mid - start)) s): $relaxed_line"
  sed -n '/^weak outcomes not seen, by what keeps the model from them:/,$p' "$out/relaxed.txt"
  echo
  echo "sc, $sc_seeds seeds each ($((end - mid)) s): $sc_line"
} > "$out/summary.md"
cat "$out/summary.md"
[ $relaxed_rc -eq 0 ] && [ $sc_rc -eq 0 ] || { echo "FAILED: see $out/relaxed.txt and $out/sc.txt (lines starting FAIL)"; exit 1; }
