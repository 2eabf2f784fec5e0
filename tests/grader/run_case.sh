#!/usr/bin/env bash
# Grades one hostile (or ordinary) submission of tests/grader/cases/ and compares the normalized
# results.json with the approved copy in tests/grader/approved/, the way Catch2 checks its
# reporters against approved output.
#
#   run_case.sh GRADER CASE_DIR APPROVED_DIR [WORK_DIR]
#
# CASE_DIR/case.txt says what the submission is: "lab: NN", "base: solutions|labs" (the student
# files it starts from), optionally "only: FILE..." (hand in just these), "timeout: SECONDS",
# "hidden: DIR" (relative to tests/grader), "student: ID" (--student: the cases with variants).
# Every other file in CASE_DIR is laid over the base,
# keeping its relative path. With SYNCLAB_APPROVE=1 a differing result replaces the approved copy.
set -uo pipefail

grader="$1" case_dir="${2%/}" approved_dir="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
name="$(basename "$case_dir")"
# shellcheck source=case_submission.sh
. "$here/case_submission.sh"

work="${4:-$(mktemp -d)}"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
sub="$work/submission"
build_dir="$(dirname "$(dirname "$grader")")"
case_submission "$root" "$case_dir" "$build_dir/grade" "$sub" || exit 2
lab="$case_lab" timeout="$case_timeout" hidden="$case_hidden"

# The grading's own work folder: one per lab under the build (<build>/grader-cases/labNN), the same
# for every case of that lab, so that the grader's object cache (docs/grader.md, "Grading again")
# gives a case the student files an earlier case of the lab compiled with the same text, as it does
# a student who hands in again. The cache keys an object by its folder, which the object names;
# a case in another folder compiles everything. The cases of one lab take turns (flock here,
# RESOURCE_LOCK in CTest).
grade_work="$build_dir/grader-cases/lab$lab"
mkdir -p "$grade_work"
exec 9>"$build_dir/grader-cases/lab$lab.lock"
flock 9
args=(grade --lab "$lab" --submission "$sub" --results "$work/results.json" --quiet --work "$grade_work")
[ -n "$timeout" ] && args+=(--timeout "$timeout")
[ -n "$hidden" ] && args+=(--hidden "$here/$hidden")
[ -n "$case_student" ] && args+=(--student "$case_student")
echo "\$ synclab-grade ${args[*]}"
"$grader" "${args[@]}"
rc=$?
[ $rc -eq 0 ] || { echo "run_case.sh: the grader exited with status $rc (it must grade every submission)"; exit 1; }
"$grader" normalize "$work/results.json" "$work/normalized.json" || exit 1
# Replay lines name the submission's directory, a new one each run ("./synclab run --lab NN
# --submission DIR ..."): the approved copy says <submission>.
sub_real="$(cd "$sub" && pwd -P)"
sed -i -e "s|$sub_real|<submission>|g" -e "s|$sub|<submission>|g" "$work/normalized.json"

approved="$approved_dir/$name.json"
if [ ! -f "$approved" ] || ! diff -u "$approved" "$work/normalized.json" >"$work/diff.txt"; then
  if [ "${SYNCLAB_APPROVE:-0}" = 1 ]; then
    cp "$work/normalized.json" "$approved"
    echo "run_case.sh: approved $approved"
    exit 0
  fi
  if [ -f "$approved" ]; then
    echo "run_case.sh: results.json differs from the approved $approved:"
    cat "$work/diff.txt"
  else
    echo "run_case.sh: there is no approved $approved yet; this run gave:"
    cat "$work/normalized.json"
  fi
  echo "(if the new result is right: SYNCLAB_APPROVE=1 ctest -R grader.case.$name, then review the diff)"
  exit 1
fi
echo "run_case.sh: $name matches the approved results"
