#!/usr/bin/env bash
# Runs a program and checks its exit status and output, for the runtime's CTest tests.
#   check_program.sh [--exit N] [--stdout REGEX]... [--stderr REGEX]... [--reject REGEX]...
#                    [--env NAME=VALUE]... [--seeds N] -- program [args...]
# --exit: the expected exit status (default 0); --stdout/--stderr: an extended regex that must
# match some line of that stream; --reject: a regex that must match no line of either stream;
# --seeds: run it N times, with SYNCLAB_SEED=1..N, and check every run (the first that fails is shown).
set -uo pipefail

want_exit=0
seeds=0
stdout_res=() stderr_res=() reject_res=()
while [ $# -gt 0 ]; do
  case "$1" in
    --exit) want_exit="$2"; shift 2 ;;
    --stdout) stdout_res+=("$2"); shift 2 ;;
    --stderr) stderr_res+=("$2"); shift 2 ;;
    --reject) reject_res+=("$2"); shift 2 ;;
    --env) export "${2?}"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "check_program.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "check_program.sh: no program given" >&2; exit 2; }

out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT

show() {
  echo "---- stdout ----"; head -c 20000 "$out"
  echo "---- stderr ----"; head -c 20000 "$err"
}
# One run, checked; 1 when it failed (what failed is printed).
run_once() {
  "$@" >"$out" 2>"$err"
  local status=$? fail=0
  if [ "$status" != "$want_exit" ]; then
    echo "FAILED: exit status $status, expected $want_exit: $*"
    fail=1
  fi
  for re in "${stdout_res[@]+"${stdout_res[@]}"}"; do
    grep -Eq -- "$re" "$out" || { echo "FAILED: stdout has no line matching: $re"; fail=1; }
  done
  for re in "${stderr_res[@]+"${stderr_res[@]}"}"; do
    grep -Eq -- "$re" "$err" || { echo "FAILED: stderr has no line matching: $re"; fail=1; }
  done
  for re in "${reject_res[@]+"${reject_res[@]}"}"; do
    if grep -Eq -- "$re" "$out" "$err"; then echo "FAILED: output has a line matching: $re"; fail=1; fi
  done
  return $fail
}
if [ "$seeds" -gt 0 ]; then
  for ((s = 1; s <= seeds; ++s)); do
    if ! SYNCLAB_SEED=$s run_once "$@"; then
      echo "(with SYNCLAB_SEED=$s, run $s of $seeds)"
      show
      exit 1
    fi
  done
  echo "all $seeds seeds passed"
elif ! run_once "$@"; then
  show
  exit 1
fi
# Keep the program's output visible in the test log.
cat "$out"
cat "$err" >&2
exit 0
