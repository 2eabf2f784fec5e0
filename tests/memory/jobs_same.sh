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
"$tool" "${args[@]}" --jobs 2 --save "$tmp/saved" >"$tmp/resumed.txt" 2>"$tmp/resumed.err" ||
  { cat "$tmp/resumed.txt" "$tmp/resumed.err"; echo "FAIL: the run resumed with --save failed"; exit 1; }
sed 's/, 2 processes)/)/' "$tmp/resumed.txt" | diff "$tmp/one.txt" - ||
  { echo "FAIL: the run resumed with --save reported otherwise than one process (diff above)"; exit 1; }
# (the whole file: its records end with "end INDEX HASH" lines)
total=$(grep -c -E '^end [0-9]+ [0-9a-f]{16}$' "$tmp/saved")
[ "$total" -gt 20 ] || { echo "FAIL: the whole --save file holds $total records"; exit 1; }
# (end_of N: the byte offset of the N-th record's end line; after N: just past it)
end_of() { grep -b -E '^end [0-9]+ [0-9a-f]{16}$' "$tmp/saved" | sed -n "$1p" | cut -d: -f1; }
after() { grep -b -E '^end [0-9]+ [0-9a-f]{16}$' "$tmp/saved" | sed -n "$1p" | awk -F: '{ print $1 + length($2) + 1 }'; }
# Cut after its twentieth record: the other tests run again, three processes side by side.
head -c "$(after 20)" "$tmp/saved" >"$tmp/part"
"$tool" "${args[@]}" --jobs 3 --save "$tmp/part" >"$tmp/part.txt" 2>"$tmp/part.err" ||
  { cat "$tmp/part.txt" "$tmp/part.err"; echo "FAIL: the run resumed from 20 records failed"; exit 1; }
sed 's/, 3 processes)/)/' "$tmp/part.txt" | diff "$tmp/one.txt" - ||
  { echo "FAIL: resumed from 20 records with --jobs 3, the report differs (diff above)"; exit 1; }
grep -q ": 20 of $total tests already ran; running the other $((total - 20))" "$tmp/part.err" ||
  { cat "$tmp/part.err"; echo "FAIL: not 20 records kept"; exit 1; }
# Cut inside its tenth record: nine come back, the torn one is dropped, the rest run again.
head -c $(($(end_of 10) + 5)) "$tmp/saved" >"$tmp/torn"
"$tool" "${args[@]}" --save "$tmp/torn" >"$tmp/torn.txt" 2>"$tmp/torn.err" ||
  { cat "$tmp/torn.txt" "$tmp/torn.err"; echo "FAIL: the run resumed from a torn --save file failed"; exit 1; }
diff "$tmp/one.txt" "$tmp/torn.txt" || { echo "FAIL: resumed from a torn file, the report differs (diff above)"; exit 1; }
grep -q 'which is no whole record' "$tmp/torn.err" || { cat "$tmp/torn.err"; echo "FAIL: no word of the torn record"; exit 1; }
grep -q ': 9 of [0-9]* tests already ran' "$tmp/torn.err" || { cat "$tmp/torn.err"; echo "FAIL: not 9 records kept"; exit 1; }
# Ten bytes gone from the middle of its fifth record, whole records after it: the four before it
# come back, nothing of the broken one or after it (its byte count would swallow the next).
a=$(after 4); b=$(end_of 5)
{ head -c $((a + 40)) "$tmp/saved"; tail -c +$((a + 51)) "$tmp/saved"; } >"$tmp/broken"
"$tool" "${args[@]}" --save "$tmp/broken" >"$tmp/broken.txt" 2>"$tmp/broken.err" ||
  { cat "$tmp/broken.txt" "$tmp/broken.err"; echo "FAIL: the run resumed from a broken --save file failed"; exit 1; }
diff "$tmp/one.txt" "$tmp/broken.txt" || { echo "FAIL: resumed from a broken file, the report differs (diff above)"; exit 1; }
grep -q ': 4 of [0-9]* tests already ran' "$tmp/broken.err" || { cat "$tmp/broken.err"; echo "FAIL: not 4 records kept"; exit 1; }
[ "$b" -gt $((a + 51)) ] || { echo "FAIL: the fifth record is too short for this test"; exit 1; }
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
echo "PASS: --jobs 3, and --save cut short, torn or broken and run again, gave the $lines lines of one process"
