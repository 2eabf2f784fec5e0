#!/usr/bin/env bash
# Replay lines run what was graded. A submission of lab 01 whose histogram.cu is the wrong
# solution histogram_no_final_barrier.cu (a race in shared memory) is graded with --keep; then:
#   1. the failed case's replay line names the kept harness program, and run as printed (from the
#      tree's root, as a student would) it reports the graded race, at the graded line, while the
#      same command with the tree's build of labs/ (build/bin/sim/lab01, the skeleton) does not;
#   2. the kept graded test program, run by hand, says that its replay lines run the kept harness;
#   3. `./synclab run --lab 01 --submission DIR` (what replay lines say without --keep) builds the
#      same harness without touching the tree, reproduces the race, and the second time reuses
#      the build; the runs its harness names come back through ./synclab run;
#   4. the tree's graded test program says that its replay lines run the tree's build of labs/;
#   5. a second grading into a kept directory in use keeps nothing there and says so.
#
#   replay.sh SOURCE_ROOT BUILD_DIR
set -uo pipefail
root="$(cd "$1" && pwd)"
build="$(cd "$2" && pwd)"
fail() { echo "replay.sh: FAILED: $*"; exit 1; }
[ "$build" = "$(cd "$root/build" 2>/dev/null && pwd)" ] ||
  fail "the build directory is $build; ./synclab run (step 3) uses $root/build"
grader="$build/bin/synclab-grade"
[ -x "$grader" ] || fail "$grader is not built"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sub="$tmp/submission" kept="$tmp/kept"
mkdir -p "$sub"
cp "$root"/solutions/01-data-races/{increment,histogram,sssp}.cu "$sub/" || fail "cannot copy the solutions"
cp "$root/tests/labs/wrong/01-data-races/histogram_no_final_barrier.cu" "$sub/histogram.cu" || fail "no wrong solution"
case_name="lab01 task2b histogram_privatized counts the 80 students under every schedule"

echo "\$ synclab-grade grade --lab 01 --submission $sub --keep $kept ..."
"$grader" grade --lab 01 --submission "$sub" --results "$tmp/results.json" --keep "$kept" >"$tmp/grade.log" 2>&1 ||
  { cat "$tmp/grade.log"; fail "the grader exited with status $?"; }
grep -q "Replay lines run $kept/lab01" "$tmp/grade.log" ||
  { cat "$tmp/grade.log"; fail "the grader's output does not say that replay lines run $kept/lab01"; }

# The failed case's output and its first replay line (JSON-decoded).
output="$(python3 -c 'import json,sys
for t in json.load(open(sys.argv[1]))["tests"]:
    if t["name"] == sys.argv[2]: print(t["status"]); print(t["output"])' "$tmp/results.json" "$case_name")"
[ "$(head -n 1 <<<"$output")" = failed ] || fail "the case '$case_name' did not fail: $output"
line="$(grep -oE 'race at histogram\.cu:[0-9]+' <<<"$output" | head -n 1)"
[ -n "$line" ] || fail "the graded case reports no race at histogram.cu: $output"
replay="$(grep -oE 'replay: [^ ].*' <<<"$output" | head -n 1 | sed 's/^replay: //')"
[ -n "$replay" ] || fail "the graded case prints no replay line: $output"
echo "graded: $line; replay line: $replay"
case "$replay" in
  "$kept/lab01 "*) ;;
  *) fail "the replay line does not run the kept harness $kept/lab01: $replay" ;;
esac

# 1. The replay line, as printed, from the tree's root.
cd "$root" || fail "cannot enter $root"
out="$(timeout 300 bash -c "$replay" 2>&1)"
grep -q "$line" <<<"$out" || { echo "$out" | tail -n 40; fail "the replay line did not reproduce '$line'"; }
echo "ok: the replay line reproduces the graded $line"
tree_cmd="build/bin/sim/lab01 ${replay#"$kept/lab01 "}"
tree_out="$(timeout 300 bash -c "$tree_cmd" 2>&1)"
if grep -q "$line" <<<"$tree_out"; then
  fail "the tree's build (\$ $tree_cmd) reports '$line' too: this test cannot tell the programs apart"
fi
echo "ok: the tree's build of labs/ runs something else (\$ $tree_cmd:$(grep -m1 -E '^  (every|wrong)' <<<"$tree_out"))"

# 2. The kept graded test program names the kept harness.
out="$(timeout 300 "$kept/lab01_tests" "$case_name" 2>&1)"
grep -q "note: replay lines below run $kept/lab01, built from the same files" <<<"$out" ||
  { echo "$out" | head -n 20; fail "the kept test program does not say which harness its replay lines run"; }
grep -q "replay: $kept/lab01 histogram" <<<"$out" || { echo "$out" | tail -n 30; fail "its replay lines do not run $kept/lab01"; }
echo "ok: the kept test program's replay lines run the kept harness"

# 3. ./synclab run builds the submission's harness, leaves the tree alone, and replays the race.
before="$(cd "$root/labs/01-data-races" && sha256sum ./*.cu)"
args="${replay#"$kept/lab01 "}"
# shellcheck disable=SC2086
out="$(SYNCLAB_SKIP_BOOTSTRAP=1 timeout 600 ./synclab run --lab 01 --submission "$sub" $args 2>&1)"
grep -q "$line" <<<"$out" || { echo "$out" | tail -n 40; fail "./synclab run --submission did not reproduce '$line'"; }
grep -q "(first in: ./synclab run --lab 01 --submission $sub histogram" <<<"$out" ||
  { echo "$out" | tail -n 40; fail "the harness run by ./synclab run does not replay through ./synclab run"; }
[ "$(cd "$root/labs/01-data-races" && sha256sum ./*.cu)" = "$before" ] || fail "./synclab run changed labs/01-data-races/"
echo "ok: ./synclab run --lab 01 --submission DIR reproduces $line and leaves the tree's files alone"
# shellcheck disable=SC2086
out="$(SYNCLAB_SKIP_BOOTSTRAP=1 timeout 600 ./synclab run --lab 01 --submission "$sub" $args 2>&1)"
if grep -q "building lab 01-data-races's harness program" <<<"$out"; then
  fail "the second ./synclab run built the harness again, though nothing changed"
fi
grep -q "$line" <<<"$out" || fail "the second ./synclab run did not reproduce '$line'"
echo "ok: the second ./synclab run reuses the build"

# 4. The tree's own graded test program says that it replays the tree's build.
out="$(timeout 300 build/bin/sim/lab01_tests_labs "$case_name" 2>&1)"
grep -q "note: replay lines below run build/bin/sim/lab01, this tree's build of labs/" <<<"$out" ||
  { echo "$out" | head -n 5; fail "the tree's test program does not say that its replay lines run the tree's build"; }
echo "ok: the tree's graded test program says that its replay lines run the tree's build of labs/"

# 5. A second grading while the first still holds the kept directory keeps nothing there, says so,
#    and replays through ./synclab run instead (flock stands in for the first grading).
command -v flock >/dev/null || fail "flock (util-linux) is missing"
out="$(flock "$kept/.lock" "$grader" grade --lab 01 --submission "$sub" --results "$tmp/again.json" --keep "$kept" 2>&1)" ||
  { echo "$out" | tail -n 20; fail "the second grading exited with status $?"; }
grep -q "Note: nothing was kept: $kept is in use by another grading" <<<"$out" ||
  { echo "$out" | tail -n 20; fail "the second grading does not say that it kept nothing"; }
grep -q "replay: ./synclab run --lab 01 --submission $sub histogram" "$tmp/again.json" ||
  fail "the second grading's replay lines do not go through ./synclab run"
[ -x "$kept/lab01" ] || fail "the second grading removed the first one's kept program"
echo "ok: a second grading into a kept directory in use keeps nothing there and says so"
