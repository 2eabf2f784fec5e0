#!/usr/bin/env bash
# Runs every fuzz target of BIN_DIR (fuzz_NAME, built by ./synclab fuzz or `cmake --build --preset
# fuzz --target synclab_fuzz_targets`) at once, each for SECONDS, one process per target: the way
# the runs recorded in tests/fuzz/README.md were made on a machine with more cores.
#   tests/fuzz/run_all.sh BIN_DIR SECONDS WORK_DIR
# WORK_DIR/corpus/NAME/ holds each target's inputs (kept between runs: a second run goes on from
# the first), WORK_DIR/findings/NAME/ what crashed, WORK_DIR/NAME.log libFuzzer's output.
# SYNCLAB_FUZZ_LIBDIR: run the programs through that directory's ld-linux-x86-64.so.2 and
# libraries (a machine without the build machine's Debian libraries).
set -u
[ $# -eq 3 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
bin=$1 seconds=$2 work=$3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "run_all.sh: SECONDS must be a positive whole number" >&2; exit 2; }
shopt -s nullglob
progs=("$bin"/fuzz_*)
[ ${#progs[@]} -gt 0 ] || { echo "run_all.sh: no fuzz_* programs in $bin" >&2; exit 2; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-symbolize=0:detect_leaks=1}
pids=()
for p in "${progs[@]}"; do
  name=$(basename "$p"); name=${name#fuzz_}
  mkdir -p "$work/corpus/$name" "$work/findings/$name"
  launcher=()
  if [ -n "${SYNCLAB_FUZZ_LIBDIR:-}" ]; then
    launcher=("$SYNCLAB_FUZZ_LIBDIR/ld-linux-x86-64.so.2" --library-path "$SYNCLAB_FUZZ_LIBDIR")
  fi
  "${launcher[@]}" "$p" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/findings/$name/" "$work/corpus/$name" "$here/corpus/$name" >"$work/$name.log" 2>&1 &
  pids+=($!)
  echo "started $name"
done
status=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || status=1
done
for p in "${progs[@]}"; do
  name=$(basename "$p"); name=${name#fuzz_}
  printf '%-14s %s | %s\n' "$name" "$(grep -E '^#[0-9]+[[:space:]]+DONE' "$work/$name.log" | tail -n 1)" \
    "$(ls "$work/findings/$name" | wc -l) findings"
done
exit $status
