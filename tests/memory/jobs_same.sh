#!/usr/bin/env bash
# synclab-litmus run --jobs J reports what one process reports: the same lines in the same order
# and the same summary (less the ", J processes" it adds). The seeds of a test do not depend on
# which process runs it, so the outcomes and counts must agree exactly.
#   jobs_same.sh SYNCLAB_LITMUS FILE
set -euo pipefail
tool=$1 file=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(run "$file" --seeds 300 --check --gaps --counts)
"$tool" "${args[@]}" >"$tmp/one.txt" || { cat "$tmp/one.txt"; echo "FAIL: one process failed"; exit 1; }
"$tool" "${args[@]}" --jobs 3 >"$tmp/three.txt" || { cat "$tmp/three.txt"; echo "FAIL: --jobs 3 failed"; exit 1; }
grep -q ', 3 processes)' "$tmp/three.txt" || { cat "$tmp/three.txt"; echo "FAIL: the summary does not name 3 processes"; exit 1; }
sed 's/, 3 processes)/)/' "$tmp/three.txt" >"$tmp/three-plain.txt"
if ! diff "$tmp/one.txt" "$tmp/three-plain.txt"; then
  echo "FAIL: --jobs 3 reported otherwise than one process (diff above)"
  exit 1
fi
lines=$(wc -l <"$tmp/one.txt")
[ "$lines" -gt 20 ] || { cat "$tmp/one.txt"; echo "FAIL: only $lines lines: the report is not the per-test one"; exit 1; }
# A bad count is refused before anything runs.
if out=$("$tool" run "$file" --jobs 0 2>&1); then echo "FAIL: --jobs 0 was accepted"; exit 1; fi
echo "$out" | grep -q 'jobs 0: a number from 1 to 1024' || { echo "$out"; echo "FAIL: --jobs 0's message"; exit 1; }
echo "PASS: --jobs 3 gave the $lines lines of one process"
