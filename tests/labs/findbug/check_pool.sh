#!/usr/bin/env bash
# tests/labs/findbug/check_pool.sh: checks one lab's find-the-bug pool (docs/findbug.md).
#
#   tests/labs/findbug/check_pool.sh --lab NN [--only NAME] [--bin DIR] [--work DIR] [--first]
#                                    [--sample K]
#
# For every program labs/NN-topic/findbug/NAME.cu (or only NAME):
#   - its reference fix solutions/NN-topic/findbug/NAME.patch (a unified diff: `patch` makes the
#     fixed program from the one handed out) applies, changes nothing from the line
#     "// ---- checks" on, and at most 10 lines in all (added plus removed, `diff` of the two; a
#     student's fix may change 12, grader/src/findbug.h);
#   - solutions/NN-topic/findbug/answers.tsv has a row for it whose lines (the bug's line as handed
#     out) include a line the fix changes or one next to an insertion (others may be accepted too);
#   - both build with synclab-nvcc; the program as handed out fails in at least one run of the
#     exploration (exit status other than 0: a wrong result, an error report, a hang; or a warning
#     report), and the fix passes every run with no report.
# The exploration is the grader's (`synclab-grade findbug --runs`): warp models its and lockstep x
# memory models sc and relaxed x pct seeds 1-4 and random seeds 1-4 (32 runs), each run at most
# 30 s. --first: the program as handed out runs only until its first failure (the fix still runs
# all 32). --sample K: every program gets the checks of its files, but only K of them are built and
# explored, the pool's programs in turn from number NN mod 5 on (so the ten labs' CTests between
# them build every position of a pool; bench/findbug_pools.sh builds every program).
set -uo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
lab= only= bin=$here/build/bin work= first_only=0 sample=0
while [ $# -gt 0 ]; do
  case $1 in
    --lab) lab=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --first) first_only=1; shift ;;
    --sample) sample=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "check_pool.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$lab" ] || { echo "check_pool.sh: --lab NN is required" >&2; exit 2; }
labdir=$(ls -d "$here"/labs/"$lab"-* 2>/dev/null | head -1)
[ -d "$labdir/findbug" ] || { echo "check_pool.sh: no labs/$lab-*/findbug/" >&2; exit 2; }
topic=$(basename "$labdir")
soldir=$here/solutions/$topic/findbug
[ -d "$soldir" ] || { echo "check_pool.sh: no solutions/$topic/findbug/ (the reference fixes)" >&2; exit 2; }
[ -n "$work" ] || work=$(mktemp -d "${TMPDIR:-/tmp}/findbug-$lab.XXXXXX")
mkdir -p "$work"
[[ "$sample" =~ ^[0-9]+$ ]] || { echo "check_pool.sh: --sample wants a number of programs, not '$sample'" >&2; exit 2; }
runs=$("$bin/synclab-grade" findbug --runs) || { echo "check_pool.sh: $bin/synclab-grade findbug --runs failed" >&2; exit 2; }
nruns=$(echo "$runs" | wc -l)
fail=0
problem() { echo "FAIL $1: $2"; fail=1; }

explore() {  # explore EXE [STOP] -> prints the failed runs' count and the first one's options
  local exe=$1 stop=${2:-0} failed=0 first= opts
  while read -r opts; do
    # (a warning report fails a run too, as in the grader)
    # shellcheck disable=SC2086
    if ! timeout 30 "$bin/synclab-run" $opts -- "$exe" > "$work/run.out" 2>&1 < /dev/null ||
      grep -q 'SyncLab WARNING' "$work/run.out"; then
      failed=$((failed + 1)); [ -n "$first" ] || first=$opts
      if [ "$stop" = 1 ]; then break; fi
    fi
  done <<< "$runs"
  echo "$failed $first"
}

progs=("$labdir"/findbug/*.cu)
# the programs built and explored: all, or --sample K of them from position NN mod 5 on
declare -A explored=()
for ((i = 0; i < ${#progs[@]}; i++)); do
  if [ "$sample" -eq 0 ] || (( (i - 10#$lab % 5 + 5 * ${#progs[@]}) % ${#progs[@]} < sample )); then
    explored[${progs[$i]}]=1
  fi
done
n=0 built=0
for prog in "${progs[@]}"; do
  name=$(basename "$prog" .cu)
  [ -z "$only" ] || [ "$name" = "$only" ] || continue
  n=$((n + 1))
  [ -f "$soldir/$name.patch" ] || { problem "$name" "no reference fix $soldir/$name.patch"; continue; }
  fixed=$work/$name.fixed.cu
  patch -s -o "$fixed" "$prog" "$soldir/$name.patch" > "$work/$name.patch.log" 2>&1 ||
    { problem "$name" "$soldir/$name.patch does not apply: $(head -3 "$work/$name.patch.log")"; continue; }
  lines=$(wc -l < "$prog")
  { [ "$lines" -ge 50 ] && [ "$lines" -le 200 ]; } || problem "$name" "$lines lines (50 to 200 wanted)"
  marker=$(grep -n '^// ---- checks' "$prog" | head -1 | cut -d: -f1)
  [ -n "$marker" ] || { problem "$name" "no '// ---- checks' line"; continue; }
  if ! diff <(tail -n +"$marker" "$prog") <(sed -n '/^\/\/ ---- checks/,$p' "$fixed") > /dev/null; then
    problem "$name" "the fix changes lines from the '// ---- checks' line on"
  fi
  changed=$(diff "$prog" "$fixed" | grep -c '^[<>]')
  { [ "$changed" -ge 1 ] && [ "$changed" -le 10 ]; } || problem "$name" "the fix changes $changed lines (1 to 10 wanted)"
  row=$(awk -F'\t' -v n="$name" '$1 == n' "$soldir/answers.tsv" 2>/dev/null)
  if [ -z "$row" ]; then
    problem "$name" "no row in $soldir/answers.tsv"
  else
    accepted=$(echo "$row" | cut -f2)
    # lines the fix touches, as numbered in the program handed out (for an insertion after line a:
    # a and a+1)
    touched=$(diff "$prog" "$fixed" | grep -E '^[0-9]' | sed -E 's/^([0-9]+)(,([0-9]+))?([acd]).*/\1 \4 \3/' |
      while read -r a kind b; do
        [ -n "$b" ] || b=$a
        if [ "$kind" = a ]; then echo "$a"; echo $((a + 1)); else seq "$a" "$b"; fi
      done | sort -n | uniq | tr '\n' ' ')
    hit=0
    for l in ${accepted//,/ }; do
      [[ " $touched " == *" $l "* ]] && hit=1
    done
    [ $hit = 1 ] || problem "$name" "answers.tsv names lines $accepted, none of which the fix touches (it touches: $touched)"
  fi
  if [ -z "$only" ] && [ -z "${explored[$prog]:-}" ]; then
    echo "$name: files checked (not built: --sample $sample)"; continue
  fi
  built=$((built + 1))
  for which in prog fixed; do
    src=$prog; [ "$which" = fixed ] && src=$fixed
    if ! "$bin/synclab-nvcc" -std=c++17 -o "$work/$name.$which" "$src" > "$work/$name.$which.log" 2>&1; then
      problem "$name" "$which does not build: $(head -5 "$work/$name.$which.log")"; continue 2
    fi
  done
  read -r bad first < <(explore "$work/$name.prog" "$first_only")
  [ "$bad" -gt 0 ] || problem "$name" "the program as handed out passes all $nruns runs (the bug is never caught)"
  read -r badfix firstfix < <(explore "$work/$name.fixed")
  [ "$badfix" -eq 0 ] || problem "$name" "the fix fails $badfix of $nruns runs (first: synclab-run $firstfix)"
  echo "$name: handed out fails $bad$([ "$first_only" = 1 ] && echo "+")/$nruns runs (first: $first); fixed fails $badfix/$nruns"
done
[ "$n" -gt 0 ] || { echo "check_pool.sh: no programs"; exit 1; }
if [ -z "$only" ] && [ "$n" -lt 5 ]; then problem "pool" "$n programs (at least 5 wanted)"; fi
if [ "$fail" -eq 0 ]; then
  if [ "$built" -eq "$n" ]; then
    echo "lab $lab: pool of $n programs: all caught, all fixes pass"
  else
    echo "lab $lab: pool of $n programs: files all right; the $built built: caught, fixes pass"
  fi
fi
exit $fail
