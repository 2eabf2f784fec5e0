#!/usr/bin/env bash
# CTest grader.object_cache: a grading that takes its student files from the grader's object
# cache (docs/grader.md item 2) gives the same results as one that compiled them. Grader cases
# whose results name source lines (a race report in a student file; a failed find-the-bug fix)
# are each graded twice with one new cache: the first grading compiles and fills it, the second,
# in another work directory, must take its files from it (the entries it used are touched) and
# must still match the approved results, paths included.
#
#   object_cache.sh GRADER
set -uo pipefail
grader=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SYNCLAB_OBJECT_CACHE=$tmp/cache
fail=0
for name in lucky-racer-01 findbug-wrong-01; do
  rm -rf "$SYNCLAB_OBJECT_CACHE"
  "$here/run_case.sh" "$grader" "$here/cases/$name" "$here/approved" > "$tmp/first.log" 2>&1 ||
    { echo "FAIL $name: the first grading (cache empty) does not match"; tail -20 "$tmp/first.log"; fail=1; continue; }
  entries=$(find "$SYNCLAB_OBJECT_CACHE" -mindepth 2 -maxdepth 2 -type d ! -name 'new-*' | wc -l)
  [ "$entries" -gt 0 ] || { echo "FAIL $name: the first grading stored nothing in the cache"; fail=1; continue; }
  find "$SYNCLAB_OBJECT_CACHE" -mindepth 2 -maxdepth 2 -type d -exec touch -d 2000-01-01 {} +
  "$here/run_case.sh" "$grader" "$here/cases/$name" "$here/approved" > "$tmp/second.log" 2>&1 ||
    { echo "FAIL $name: the second grading (files from the cache) does not match"; tail -40 "$tmp/second.log"; fail=1; continue; }
  used=$(find "$SYNCLAB_OBJECT_CACHE" -mindepth 2 -maxdepth 2 -type d -newermt 2001-01-01 | wc -l)
  [ "$used" -eq "$entries" ] ||
    { echo "FAIL $name: the second grading took $used of the $entries cached files"; fail=1; continue; }
  echo "ok $name: $entries file(s) compiled, then all $used taken from the cache; both match the approved results"
done
exit $fail
