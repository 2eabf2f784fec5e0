#!/usr/bin/env bash
# synclab-litmus run --jobs J reports what one process reports: the same lines in the same order
# and the same summary (less the ", J processes" it adds). The seeds of a test do not depend on
# which process runs it, so the outcomes and counts must agree exactly. So does a run with --save
# that was cut short (killed, or its file cut inside a record) and then run again with that file,
# and one with --progress (its lines go to stderr).
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
# --save: killed after a second (however far it got), then run again with the file.
timeout -s TERM 1 "$tool" "${args[@]}" --jobs 2 --save "$tmp/saved" >/dev/null 2>&1 || true
[ -s "$tmp/saved" ] || { echo "FAIL: --save left no file"; exit 1; }
"$tool" "${args[@]}" --jobs 2 --save "$tmp/saved" >"$tmp/resumed.txt" 2>"$tmp/resumed.err" ||
  { cat "$tmp/resumed.txt" "$tmp/resumed.err"; echo "FAIL: the run resumed with --save failed"; exit 1; }
sed 's/, 2 processes)/)/' "$tmp/resumed.txt" | diff "$tmp/one.txt" - ||
  { echo "FAIL: the run resumed with --save reported otherwise than one process (diff above)"; exit 1; }
# The file cut inside its tenth record: nine come back, the torn one is dropped, the rest run again.
cut=$(grep -b -m 11 -E '^[0-9]+ [01] [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$' "$tmp/saved" | tail -1 | cut -d: -f1)
head -c $((cut - 5)) "$tmp/saved" >"$tmp/torn"
"$tool" "${args[@]}" --save "$tmp/torn" >"$tmp/torn.txt" 2>"$tmp/torn.err" ||
  { cat "$tmp/torn.txt" "$tmp/torn.err"; echo "FAIL: the run resumed from a torn --save file failed"; exit 1; }
diff "$tmp/one.txt" "$tmp/torn.txt" || { echo "FAIL: resumed from a torn file, the report differs (diff above)"; exit 1; }
grep -q 'dropping an incomplete record' "$tmp/torn.err" || { cat "$tmp/torn.err"; echo "FAIL: no word of the torn record"; exit 1; }
grep -q ': 9 of [0-9]* tests already ran' "$tmp/torn.err" || { cat "$tmp/torn.err"; echo "FAIL: not 9 records kept"; exit 1; }
# A file of another run (other seeds) is refused, and left as it was.
sum=$(md5sum <"$tmp/saved")
if out=$("$tool" run "$file" --seeds 299 --check --gaps --counts --save "$tmp/saved" 2>&1); then
  echo "FAIL: --save accepted the file of a run with other seeds"; exit 1
fi
echo "$out" | grep -q 'holds the results of another run' || { echo "$out"; echo "FAIL: the refusal's message"; exit 1; }
[ "$(md5sum <"$tmp/saved")" = "$sum" ] || { echo "FAIL: the refused file was changed"; exit 1; }
# --progress: lines on stderr, the last one with every test done; the report on stdout unchanged.
"$tool" "${args[@]}" --jobs 2 --progress >"$tmp/progress.txt" 2>"$tmp/progress.err" ||
  { cat "$tmp/progress.err"; echo "FAIL: the run with --progress failed"; exit 1; }
sed 's/, 2 processes)/)/' "$tmp/progress.txt" | diff -q "$tmp/one.txt" - >/dev/null ||
  { echo "FAIL: --progress changed the report"; exit 1; }
tail -1 "$tmp/progress.err" | grep -Eq '^synclab-litmus: ([0-9]+) of \1 tests done$' ||
  { cat "$tmp/progress.err"; echo "FAIL: --progress did not end with every test done"; exit 1; }
lines=$(wc -l <"$tmp/one.txt")
[ "$lines" -gt 20 ] || { cat "$tmp/one.txt"; echo "FAIL: only $lines lines: the report is not the per-test one"; exit 1; }
# A bad count is refused before anything runs.
if out=$("$tool" run "$file" --jobs 0 2>&1); then echo "FAIL: --jobs 0 was accepted"; exit 1; fi
echo "$out" | grep -q 'jobs 0: a number from 1 to 1024' || { echo "$out"; echo "FAIL: --jobs 0's message"; exit 1; }
echo "PASS: --jobs 3, and --save cut short and run again, gave the $lines lines of one process"
