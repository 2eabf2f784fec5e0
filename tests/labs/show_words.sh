#!/usr/bin/env bash
# One --show vocabulary for every lab (synclab::lab::TraceChoice, labs/common/synclab_lab.h): each
# lab's exploring commands take `any`, `bad` and `good` besides their own words; an unknown word is
# a usage error (exit 2) that names the valid ones, before anything runs or is written; `bad` and
# `good` record the first run that failed or passed the command's check, and when no explored run
# matches, the program says so and writes no trace. Run on the reference solutions' harness
# programs (build/bin/sim/labNN_solutions), whose outcomes the graded tests pin down.
#
#   show_words.sh BIN_SIM_DIR
set -uo pipefail
bin="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export SYNCLAB_QUIET=1
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# An unknown word, for one exploring command of each lab: exit 2, the message lists any, bad, good
# and the command's own words, and no trace is written.
while IFS='|' read -r lab words args; do
  prog="$bin/lab${lab}_solutions"
  [ -x "$prog" ] || { fail "$prog was not built"; continue; }
  rm -f "$tmp/x.trace"
  # shellcheck disable=SC2086
  "$prog" $args --model its --sched rr --show sometimes --trace "$tmp/x.trace" >"$tmp/out" 2>&1
  status=$?
  if [ $status != 2 ]; then
    fail "lab$lab $args --show sometimes: exit $status, expected 2 (a usage error):"; sed 's/^/    /' "$tmp/out"
  elif ! grep -qF -- "--show takes $words (which run --trace records), not 'sometimes'" "$tmp/out"; then
    fail "lab$lab $args --show sometimes: the message does not list $words:"; sed 's/^/    /' "$tmp/out"
  elif [ -e "$tmp/x.trace" ]; then
    fail "lab$lab $args --show sometimes wrote a trace"
  else
    echo "ok: lab$lab $args --show sometimes: $(grep -m1 -- '--show takes' "$tmp/out")"
  fi
done <<'EOF'
01|any, bad, good or a number|increment --blocks 2 --threads 1
02|any, bad, good, stuck or overlap|v1 --where warps
03|any, bad, good, deadlock or finished|naive --blocks 1 --threads 4
04|any, bad, good, race or clean|classwork --kernel racy --blocks 1 --threads 8
05|any, bad, good or race|hillis --kernel racy --blocks 1 --threads 32
06|any, bad, good or lost|locked --blocks 1 --threads 4
07|any, bad, good, race or clean|simple --blocks 2 --threads 4 --rounds 1
08|any, bad or good|ring --items 4
09|any, bad or good|channel --values 4
10|any, bad, good or weak|litmus --test mp
EOF

# expect NAME WORD RECORDED PROGRAM ARGS...: runs PROGRAM ARGS --show WORD --trace FILE; RECORDED
# yes: a "recording" line and a non-empty trace; no: the "no explored run matched" line, no trace.
expect() {
  local name="$1" word="$2" recorded="$3" prog="$4"
  shift 4
  rm -f "$tmp/t.trace"
  "$prog" "$@" --show "$word" --trace "$tmp/t.trace" >"$tmp/out" 2>&1
  local status=$?
  if [ $status = 2 ]; then
    fail "$name --show $word: a usage error"; sed 's/^/    /' "$tmp/out"; return
  fi
  if [ "$recorded" = yes ]; then
    if grep -q "^recording $tmp/t.trace with " "$tmp/out" && [ -s "$tmp/t.trace" ]; then
      echo "ok: $name --show $word: $(grep -m1 '^recording' "$tmp/out")"
    else
      fail "$name --show $word recorded no trace:"; sed 's/^/    /' "$tmp/out"
    fi
  elif grep -q "^no explored run matched --show $word, so no trace was recorded" "$tmp/out" && [ ! -e "$tmp/t.trace" ]; then
    echo "ok: $name --show $word: $(grep -m1 '^no explored run' "$tmp/out")"
  else
    fail "$name --show $word: expected no run to match and no trace:"; sed 's/^/    /' "$tmp/out"
  fi
}

# The naive lock under lockstep deadlocks in every run (the graded prediction of task 1a), under its
# it finishes in every run: bad and good, and lab 03's own words, each recorded or not accordingly.
naive=("$bin/lab03_solutions" naive --blocks 1 --threads 4)
expect "lab03 naive (lockstep)" bad yes "${naive[@]}" --models lockstep
expect "lab03 naive (lockstep)" deadlock yes "${naive[@]}" --models lockstep
expect "lab03 naive (lockstep)" good no "${naive[@]}" --models lockstep
expect "lab03 naive (lockstep)" finished no "${naive[@]}" --models lockstep
expect "lab03 naive (its)" good yes "${naive[@]}" --models its
expect "lab03 naive (its)" bad no "${naive[@]}" --models its
# The reference's fixed increment always counts every thread: no bad run; the racy one loses an
# update in some run of the exploration (task 1a's graded final values {1, 2}).
expect "lab01 increment --kernel fixed" bad no "$bin/lab01_solutions" increment --kernel fixed --blocks 2 --threads 1
expect "lab01 increment --kernel fixed" 2 yes "$bin/lab01_solutions" increment --kernel fixed --blocks 2 --threads 1
expect "lab01 increment --kernel racy" 1 yes "$bin/lab01_solutions" increment --kernel racy --blocks 2 --threads 1
expect "lab01 increment --kernel racy" bad yes "$bin/lab01_solutions" increment --kernel racy --blocks 2 --threads 1

if [ $failures -gt 0 ]; then
  echo "show_words.sh: $failures check(s) failed"
  exit 1
fi
echo "show_words.sh: every check passed"
