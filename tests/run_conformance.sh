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
#     --same-as-gpu LOG NAME
#                        stdout must equal program NAME's stdout in LOG, a log of a real GPU run
#                        written by tests/gpu/run_corpus_on_gpu.sh (skipped if NAME is not in it)
# Exit status 0 when every check holds; 1 otherwise, saying which check failed.
set -u

model="" runner="" pass="" expected="" expect_report="" reject="" gpu_log="" gpu_name=""
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
    --same-as-gpu) gpu_log=$2; gpu_name=$3; shift 3 ;;
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
if [ -n "$gpu_log" ]; then
  [ -f "$gpu_log" ] || fail "GPU log $gpu_log is missing"
  awk -v name="$gpu_name" '
    /^=== / { inside = ($2 == name); next }
    /^#/ { next }
    inside { print }' "$gpu_log" >"$tmp/gpu.out"
  if grep -q "^=== $gpu_name " "$gpu_log"; then
    if ! cmp -s "$tmp/gpu.out" "$tmp/out"; then
      echo "--- diff GPU simulator"
      diff "$tmp/gpu.out" "$tmp/out"
      fail "stdout differs from the real GPU's ($(head -1 "$gpu_log" | sed 's/^# //'))"
    fi
    echo "stdout equals the real GPU's ($(head -1 "$gpu_log" | sed 's/^# device: //'))"
  fi
fi
echo "OK"
