#!/usr/bin/env bash
# `./synclab gradescope-package` writes a zip with setup.sh and run_autograder at its root; in a
# directory laid out as Gradescope's /autograder (source/, submission/, results/), setup.sh builds
# it and run_autograder grades: the reference solutions with the hidden tests get full marks, the
# skeletons none, and a results.json planted beforehand is replaced.
#
#   gradescope_package.sh SOURCE_ROOT
set -uo pipefail
root="$(cd "$1" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # as on Gradescope: the submission's unprivileged user reads the build
fail() { echo "gradescope_package.sh: FAILED: $*"; exit 1; }

# A hidden test that does not compile is refused when the package is made, with the compiler's
# message, and no zip is written.
mkdir -p "$tmp/broken-hidden" && cp "$root"/tests/grader/hidden/01/*.cpp "$tmp/broken-hidden/" &&
  echo "this line does not compile" >>"$tmp/broken-hidden/more_shapes.test.cpp"
if "$root/synclab" gradescope-package "$tmp/broken.zip" --lab 01 --hidden "$tmp/broken-hidden" >"$tmp/broken.log" 2>&1; then
  fail "a package with a hidden test that does not compile was written"
fi
grep -q "more_shapes.test.cpp.*error" "$tmp/broken.log" && grep -q "do not build with lab 01" "$tmp/broken.log" ||
  { cat "$tmp/broken.log"; fail "the refusal does not show the compiler's message"; }
[ ! -e "$tmp/broken.zip" ] || fail "the refused package was written anyway"
echo "ok: a hidden test that does not compile is refused: $(grep -m1 "error" "$tmp/broken.log")"

"$root/synclab" gradescope-package "$tmp/lab01.zip" --lab 01 --hidden "$root/tests/grader/hidden/01" ||
  fail "gradescope-package exited with status $?"
ag="$tmp/autograder"
mkdir -p "$ag/source" "$ag/submission" "$ag/results"
(cd "$ag/source" && cmake -E tar xf "$tmp/lab01.zip") || fail "the zip does not unpack"
for f in setup.sh run_autograder; do
  [ -x "$ag/source/$f" ] || fail "$f is not at the zip's root, or not executable"
done
[ ! -e "$ag/source/tests/grader/cases" ] || fail "the package holds the grader's test cases"
[ -f "$ag/source/hidden/more_shapes.test.cpp" ] || fail "the package lacks the hidden tests"
# Only lab 01's reference solutions; no other lab's, no wrong solutions or other designs, no example
# hidden tests.
[ -f "$ag/source/solutions/01-data-races/histogram.cu" ] || fail "the package lacks lab 01's reference solutions"
others="$(cd "$ag/source" && ls -d solutions/*/ tests/labs/wrong tests/labs/designs tests/grader/hidden 2>/dev/null | grep -v '^solutions/01-data-races/$')"
[ -z "$others" ] || fail "the package of lab 01 holds $(tr '\n' ' ' <<<"$others")"
echo "ok: zip with setup.sh, run_autograder, the source and hidden/"

export SYNCLAB_AUTOGRADER_ROOT="$ag"
(cd "$ag/source" && ./setup.sh) >"$tmp/setup.log" 2>&1 || { tail -n 40 "$tmp/setup.log"; fail "setup.sh failed"; }
echo "ok: setup.sh: $(grep '== setup.sh: ready' "$tmp/setup.log")"
for d in solutions hidden tests/labs/wrong; do
  [ -n "$(find "$ag/source/$d" -perm /o+r -print -quit)" ] && fail "$d is readable by other users after setup.sh"
done
echo "ok: solutions/, hidden/ and tests/labs/wrong/ are root's alone after setup.sh"

grade() {  # grade NAME EXPECTED_SCORE [TEXT]: run_autograder on what is in submission/; TEXT in its output
  echo '{"score": 1000, "tests": []}' >"$ag/results/results.json"  # planted: must be replaced
  "$ag/source/run_autograder" >"$tmp/$1.log" 2>&1 || { cat "$tmp/$1.log"; fail "run_autograder failed on $1"; }
  python3 - "$ag/results/results.json" "$1" "$2" <<'PY' || fail "results.json for $1"
import json, sys
j = json.load(open(sys.argv[1]))
name, want = sys.argv[2], float(sys.argv[3])
tests = j["tests"]
hidden = [t for t in tests if "hidden" in t["tags"]]
assert j["score"] == want, f"{name}: score {j['score']}, expected {want}"
assert len(hidden) == 2, f"{name}: {len(hidden)} hidden cases"
assert {t["visibility"] for t in hidden} == {"after_published", "visible"}, [t["visibility"] for t in hidden]
for key in ("score", "execution_time", "output", "visibility", "stdout_visibility", "tests"):
    assert key in j, f"{name}: results.json lacks {key}"
print(f"ok: {name}: score {j['score']} of {sum(t['max_score'] for t in tests)}, {len(tests)} cases ({len(hidden)} hidden)")
PY
  if [ -n "${3:-}" ]; then
    grep -qF -- "$3" "$ag/results/results.json" || fail "$1: results.json does not say '$3'"
    echo "ok: $1: results.json says '$3'"
  fi
}
rm -rf "$ag/submission"/* && cp "$root"/solutions/01-data-races/*.cu "$ag/submission/" &&
  "$root/tests/grader/findbug_answer.sh" "$root/build/bin/synclab-grade" 01 "" "$ag/submission"
grade reference 31
rm -rf "$ag/submission"/* && mkdir -p "$ag/submission/labs/01-data-races" &&
  cp "$root"/labs/01-data-races/*.cu "$ag/submission/labs/01-data-races/"
grade skeleton 0
# A submission that includes the reference solution instead of solving the lab.
rm -rf "$ag/submission"/* && cp "$root"/solutions/01-data-races/*.cu "$ag/submission/" &&
  printf '#include "../../solutions/01-data-races/histogram.cu"\n' >"$ag/submission/histogram.cu"
# (solutions/ is root's alone after setup.sh: the compiler, run as the submission's user, cannot read it)
grade includes-reference 0 "Permission denied"

# When the grader dies without writing results.json, run_autograder still writes one.
mv "$ag/source/build/bin/synclab-grade" "$tmp/synclab-grade.real"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$ag/source/build/bin/synclab-grade"
chmod 755 "$ag/source/build/bin/synclab-grade"
echo '{"score": 1000, "tests": []}' >"$ag/results/results.json"
"$ag/source/run_autograder" >"$tmp/crash.log" 2>&1 && fail "run_autograder succeeded although the grader crashed"
python3 - "$ag/results/results.json" <<'PY' || fail "no fallback results.json after a grader crash"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["score"] == 0 and "stopped before it could write results" in j["output"], j
print("ok: a crashed grader still leaves a results.json with score 0 that says so")
PY
mv "$tmp/synclab-grade.real" "$ag/source/build/bin/synclab-grade"
