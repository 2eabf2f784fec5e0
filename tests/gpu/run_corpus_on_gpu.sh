#!/usr/bin/env bash
# Runs every GPU build of the conformance corpus on the real GPU and writes one log with each
# program's exit status and stdout, in the form tests/run_conformance.sh --same-as-gpu reads:
#
#   # device: <nvidia-smi name>, driver <version>, <date>
#   === <program> exit=<status>
#   <stdout lines>
#
#   run_corpus_on_gpu.sh BIN_DIR PROGRAMS_TXT OUT_LOG
set -u
bin=$1 list=$2 log=$3
{
  dev=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
  echo "# device: ${dev:-unknown}, $(date -u +%Y-%m-%dT%H:%MZ)"
  while read -r prog _; do
    case "$prog" in ''|\#*) continue ;; esac
    out=$(timeout 120 "$bin/$prog" 2>/tmp/stderr.$$)
    status=$?
    echo "=== $prog exit=$status"
    [ -n "$out" ] && printf '%s\n' "$out"
    if [ $status -ne 0 ]; then sed 's/^/# stderr: /' /tmp/stderr.$$ | head -20; fi
  done <"$list"
} >"$log"
rm -f /tmp/stderr.$$
passed=$(grep -c '^=== .* exit=0$' "$log")
total=$(grep -c '^=== ' "$log")
echo "$passed of $total programs exited 0 on the GPU"
