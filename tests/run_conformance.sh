#!/usr/bin/env bash
# Runs one CUDA program (simulator or GPU build) for a CTest test and checks what it did.
#
#   run_conformance.sh [options] -- PROGRAM [ARGS...]
#     --model M          run under warp model M (SYNCLAB_MODEL=M, or --model M for --runner)
#     --runner RUN       start the program through RUN (synclab-run): RUN --model M -- PROGRAM
#     --env VAR=VALUE    set a variable for the run (repeatable)
#     --pass NAME        the run must exit 0 and print a line "PASS NAME"
#     --expected FILE    stdout must equal FILE; a "PASS NAME" line may be left out of FILE
#     --expect-report RE the run must exit non-zero and its output must match RE
#                        (extended regex, case-insensitive)
#     --reject RE        the run's stderr must not match RE (case-insensitive)
# Exit status 0 when every check holds; 1 otherwise, saying which check failed.
set -u

model="" runner="" pass="" expected="" expect_report="" reject=""
envs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --pass) pass=$2; shift 2 ;;
    --expected) expected=$2; shift 2 ;;
    --expect-report) expect_report=$2; shift 2 ;;
    --reject) reject=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_conformance.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ $# -ge 1 ] || { echo "run_conformance.sh: no program given" >&2; exit 2; }
program=$1; shift
[ -x "$program" ] || { echo "FAILED: $program does not exist or is not executable (did it build?)"; exit 1; }

cmd=()
if [ -n "$runner" ]; then
  [ -x "$runner" ] || { echo "FAILED: runner $runner does not exist (did it build?)"; exit 1; }
  cmd=("$runner")
  [ -n "$model" ] && cmd+=(--model "$model")
  cmd+=(-- "$program" "$@")
else
  [ -n "$model" ] && envs+=("SYNCLAB_MODEL=$model")
  cmd=("$program" "$@")
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
env ${envs[@]+"${envs[@]}"} "${cmd[@]}" >"$tmp/out" 2>"$tmp/err"
status=$?

echo "\$ ${envs[*]:+${envs[*]} }${cmd[*]}"
echo "--- stdout"; cat "$tmp/out"
echo "--- stderr"; cat "$tmp/err"
echo "--- exit status $status"

fail() { echo "FAILED: $*"; exit 1; }

if [ -n "$expect_report" ]; then
  [ $status -ne 0 ] || fail "expected a non-zero exit with a report matching /$expect_report/, got exit 0"
  cat "$tmp/out" "$tmp/err" | grep -qiE -- "$expect_report" ||
    fail "the output has no report matching /$expect_report/"
elif [ $status -ne 0 ]; then
  fail "exit status $status (expected 0)"
fi
if [ -n "$pass" ]; then
  grep -qxF "PASS $pass" "$tmp/out" || fail "no line 'PASS $pass' on stdout"
fi
if [ -n "$reject" ] && grep -qiE -- "$reject" "$tmp/err"; then
  fail "stderr matches /$reject/, which this run must not report"
fi
if [ -n "$expected" ]; then
  [ -f "$expected" ] || fail "expected-output file $expected is missing"
  if ! cmp -s "$expected" "$tmp/out"; then
    # The expected file may leave the program's own verdict line out.
    if [ -n "$pass" ]; then grep -vxF "PASS $pass" "$tmp/out"; else grep -v '^PASS ' "$tmp/out"; fi >"$tmp/out.nopass"
    if ! cmp -s "$expected" "$tmp/out.nopass"; then
      echo "--- diff expected actual"
      diff "$expected" "$tmp/out.nopass"
      fail "stdout differs from $expected"
    fi
  fi
fi
echo "OK"
