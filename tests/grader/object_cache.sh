#!/usr/bin/env bash
# CTest grader.object_cache: a grading that takes its student files from the grader's object
# cache (docs/grader.md item 2) gives the same results as one that compiled them. Grader cases
# whose results name source lines (a race report in a student file; a failed find-the-bug fix)
# are each graded twice with one new cache and one --keep directory (objects are shared only
# between gradings that compile from the same folder, as `./synclab grade` does): the first
# grading compiles and fills the cache; the second must take the student files, and findbug.cu
# (built in the kept folder's findbug/), from it (the entries it used are touched) and give the
# same normalized results.
#
#   object_cache.sh GRADER
set -uo pipefail
grader=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=case_submission.sh
. "$here/case_submission.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
fail=0
for name in lucky-racer-01 findbug-wrong-01; do
  cache=$tmp/cache-$name
  sub=$tmp/sub-$name
  case_submission "$root" "$here/cases/$name" "$(dirname "$(dirname "$grader")")/grade" "$sub" || exit 2
  grade() {  # grade N: results in $tmp/$name.N.json (normalized)
    "$grader" grade --lab "$case_lab" --submission "$sub" --results "$tmp/r.json" --keep "$tmp/keep-$name" \
      --object-cache "$cache" ${case_student:+--student "$case_student"} > "$tmp/$name.$1.log" 2>&1 &&
      "$grader" normalize "$tmp/r.json" "$tmp/$name.$1.json"
  }
  grade 1 || { echo "FAIL $name: the first grading failed"; tail -20 "$tmp/$name.1.log"; fail=1; continue; }
  entries=$(find "$cache" -mindepth 2 -maxdepth 2 -type d ! -name 'new-*' | wc -l)
  [ "$entries" -gt 0 ] || { echo "FAIL $name: the first grading stored nothing in the cache"; fail=1; continue; }
  find "$cache" -mindepth 2 -maxdepth 2 -type d -exec touch -d 2000-01-01 {} +
  grade 2 || { echo "FAIL $name: the second grading failed"; tail -20 "$tmp/$name.2.log"; fail=1; continue; }
  # every student file from the cache, and findbug.cu where the submission has one
  used=$(grep -c "compiled before with the same inputs" "$tmp/$name.2.log")
  files=$(grep -c "^  student file " "$tmp/$name.2.log")
  if [ -f "$sub/findbug.cu" ]; then
    grep -q "^  findbug.cu: compiled before with the same inputs" "$tmp/$name.2.log" ||
      { echo "FAIL $name: the second grading compiled findbug.cu again"; grep findbug "$tmp/$name.2.log"; fail=1; continue; }
    files=$((files + 1))
  fi
  touched=$(find "$cache" -mindepth 2 -maxdepth 2 -type d -newermt 2001-01-01 | wc -l)
  { [ "$files" -gt 0 ] && [ "$used" -eq "$files" ] && [ "$touched" -ge "$used" ]; } ||
    { echo "FAIL $name: the second grading took $used of its $files student file(s) from the cache"; fail=1; continue; }
  # The find-the-bug program builds and runs beside the cases, but its lines (from "find the
  # bug: the program is" on) come after theirs (grader/src/grading_setup.cpp, grade()), as when it
  # ran alone.
  last_case=$(grep -n '^  \[[0-9]*/[0-9]*\] ' "$tmp/$name.2.log" | tail -1 | cut -d: -f1)
  first_findbug=$(grep -n '^  find the bug: the program is ' "$tmp/$name.2.log" | head -1 | cut -d: -f1)
  { [ -n "$last_case" ] && [ -n "$first_findbug" ] && [ "$first_findbug" -gt "$last_case" ]; } ||
    { echo "FAIL $name: find-the-bug lines before the cases' (line ${first_findbug:-none}, last case at ${last_case:-none})"; fail=1; continue; }
  if ! diff -u "$tmp/$name.1.json" "$tmp/$name.2.json" > "$tmp/diff"; then
    echo "FAIL $name: the grading from the cache differs from the one that compiled:"; cat "$tmp/diff"; fail=1; continue
  fi
  grep -q '"status": "failed"' "$tmp/$name.2.json" || { echo "FAIL $name: no failed case to compare"; fail=1; continue; }
  echo "ok $name: $entries file(s) compiled, then $used taken from the cache; the results are the same"
done
exit $fail
