#!/usr/bin/env bash
# `./synclab export-student` writes a student release that holds what students need to build, run,
# visualize and grade the labs, and no answer: no reference solution, no wrong solution, no hidden
# test or grader case, and no program of the simulator's test corpus (tests/conformance,
# tests/fixtures, tests/checks, tests/litmus), by path or by contents; every header the labs
# include from labs/common/ is there. It refuses to overwrite a non-empty directory, and the
# release works from its own README: `./synclab demo`; every input of every target of its build
# graph is there; the harness programs of labs 01 and 03 build and run; `./synclab grade` grades
# lab 01's untouched skeletons with a failing score (not an error) and scores lab 03's speed case
# against the release's recorded reference times. It builds only what it runs (every lab's
# programs are built and run in the tree by the labs' own tests; what a release could lack is a
# file, which the build graph check finds).
#
#   export_student.sh SOURCE_ROOT
set -uo pipefail
root="$(cd "$1" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # as on Gradescope: the submission's unprivileged user reads the build
fail() { echo "export_student.sh: FAILED: $*"; exit 1; }
out="$tmp/release"

# --help prints the usage and writes nothing (it once wrote a release into a folder named --help).
help="$(cd "$tmp" && "$root/synclab" export-student --help)" || fail "export-student --help exited with status $?"
grep -q "^usage: ./synclab export-student OUT" <<<"$help" || fail "export-student --help printed: $help"
[ -z "$(ls -A "$tmp")" ] || fail "export-student --help wrote into $tmp: $(ls -A "$tmp")"

"$root/synclab" export-student "$out" || fail "export-student exited with status $?"
[ -f "$out/STUDENT-RELEASE.md" ] || fail "STUDENT-RELEASE.md is missing"
grep -q "^> \*\*This is a student release\*\*" "$out/README.md" || fail "the release's README does not say at its top that it is a student release"
for need in README.md synclab labs/01-data-races/README.md labs/01-data-races/histogram.cu \
            labs/common/synclab_lab.h labs/common/lab_harness.cuh tests/labs/lab01.test.cpp \
            demo/naive_intra_warp_lock.cu grader/src/grader.cpp; do
  [ -f "$out/$need" ] || fail "the release lacks $need"
done
# Nothing of solutions/ or of the test directories that hold answers, by path or by contents (a
# program of them copied elsewhere), and every quoted include of labs/ found in the release.
python3 - "$root" "$out" <<'PY' || fail "the release holds what it must not, or lacks what the labs include (above)"
import hashlib, os, re, sys
root, out = sys.argv[1], sys.argv[2]
forbidden = ["solutions", "tests/labs/wrong", "tests/labs/designs", "tests/grader", "tests/conformance",
             "tests/fixtures", "tests/checks", "tests/litmus"]
programs = (".cu", ".cuh", ".cpp", ".h", ".c")

def files(top):
    for d, _, names in os.walk(top):
        for n in names:
            yield os.path.relpath(os.path.join(d, n), top)

def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()

release = sorted(f for f in files(out) if not f.startswith("build/"))
bad = [f"{f} (under {d}/)" for f in release for d in forbidden if f.startswith(d + "/")]
# Contents: the release's files against solutions/ (every file) and the programs of the other
# directories (the grader's cases are left out: they hold copies of the skeletons).
secret = {}
for d in forbidden:
    for f in files(os.path.join(root, d)) if os.path.isdir(os.path.join(root, d)) else []:
        if d == "solutions" or (d != "tests/grader" and f.endswith(programs)):
            secret.setdefault(digest(os.path.join(root, d, f)), f"{d}/{f}")
bad += [f"{f}, a copy of {secret[h]}" for f in release if (h := digest(os.path.join(out, f))) in secret]
for b in bad:
    print(f"export_student.sh: the release holds {b}")
# The labs' quoted includes resolve inside the lab's folder or labs/common/ of the release.
missing = []
for f in release:
    if not f.startswith("labs/") or not f.endswith(programs):
        continue
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(os.path.join(out, f), errors="replace").read(), re.M):
        here = os.path.join(out, os.path.dirname(f), inc)
        common = os.path.join(out, "labs/common", inc)
        if not os.path.isfile(here) and not os.path.isfile(common):
            missing.append(f"{f} includes \"{inc}\", which is neither in {os.path.dirname(f)}/ nor in labs/common/")
for m in missing:
    print(f"export_student.sh: {m}")
if bad or missing:
    sys.exit(1)
print(f"ok: {len(release)} files; none of {', '.join(d + '/' for d in forbidden)} by path, none of their "
      f"{len(secret)} programs by contents; the labs' includes are all there")
PY

# A second export into the same directory is refused and changes nothing.
before="$(find "$out" -type f | wc -l)"
if "$root/synclab" export-student "$out" >"$tmp/again.log" 2>&1; then fail "exporting into a non-empty directory succeeded"; fi
grep -q "not empty" "$tmp/again.log" || fail "the refusal does not say why: $(cat "$tmp/again.log")"
[ "$(find "$out" -type f | wc -l)" = "$before" ] || fail "the refused export changed the directory"
echo "ok: a second export into it is refused: $(head -n 1 "$tmp/again.log")"

# The decks are the student variants: every code block marked as an answer is left out (lab 08's
# persistent loop and odd/even body, lab 06's pushes, ...), and nothing marks one any more.
[ "$(grep -c "left out of the student release" "$out/slides/08-cpu-gpu-handoff.md")" -ge 2 ] ||
  fail "the release's lab 08 deck still holds its answers"
! grep -l "<!-- answer" "$out"/slides/[0-9][0-9]-*.md >/dev/null 2>&1 || fail "a released deck still has answer marks"
! grep -q "SystemAtomic<unsigned> asked(mb->asked)" "$out/slides/08-cpu-gpu-handoff.md" ||
  fail "the release's lab 08 deck holds the persistent kernel's loop"
echo "ok: the released decks leave out their $(cat "$out"/slides/[0-9][0-9]-*.md | grep -c "left out of the student release") answer blocks"

# A function of a reference solution copied into a deck (re-indented, another comment, no answer
# mark) makes the export fail, naming the deck's lines and the solution, before it builds anything.
# In a clone of the committed tree, so that this tree's decks stay as they are.
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git clone -q "$root" "$tmp/tree" || fail "cloning the tree for the planted answer"
  { echo; echo "## A slide with a copied answer"; echo; echo '```c++'
    sed -n '/^__device__ void push_node_locked/,/^}/p' "$root/solutions/06-linked-lists/locked.cu" |
      sed 's/^  /    /; s|//.*$|// see the lab|'
    echo '```'; } >>"$tmp/tree/slides/06-linked-lists.md"
  if (cd "$tmp/tree" && ./synclab export-student "$tmp/planted" >"$tmp/planted.log" 2>&1); then
    fail "export-student wrote a release whose lab 06 deck holds push_node_locked"
  fi
  grep -q "slides/06-linked-lists.md:[0-9]*-[0-9]*: the same 4 code lines as solutions/06-linked-lists/locked.cu" \
    "$tmp/planted.log" || { cat "$tmp/planted.log"; fail "the refusal does not name the deck's lines and the solution"; }
  [ ! -e "$tmp/planted" ] || fail "the refused export left $tmp/planted behind"
  echo "ok: a planted answer is refused: $(grep -m1 "the same 4 code lines" "$tmp/planted.log")"
fi

# --labs: a release of some labs only, for the first weeks.
if "$root/synclab" export-student "$tmp/none" --labs 11 >"$tmp/none.log" 2>&1; then fail "--labs 11 was accepted"; fi
grep -q "there is no lab 11" "$tmp/none.log" || fail "--labs 11: $(cat "$tmp/none.log")"
"$root/synclab" export-student "$tmp/few" --labs 1,03 >"$tmp/few.log" 2>&1 || { cat "$tmp/few.log"; fail "export-student --labs 1,03"; }
for need in labs/01-data-races/README.md labs/03-atomic-locks/README.md slides/01-data-races.md \
            slides/03-atomic-locks.md tests/labs/lab01.test.cpp tests/labs/lab03.test.cpp labs/common/synclab_lab.h; do
  [ -f "$tmp/few/$need" ] || fail "the release of labs 01 and 03 lacks $need"
done
for gone in labs/02-peterson-bakery slides/02-peterson-bakery.md tests/labs/lab02.test.cpp labs/10-memory-model \
            slides/08-cpu-gpu-handoff.md; do
  [ ! -e "$tmp/few/$gone" ] || fail "the release of labs 01 and 03 holds $gone"
done
cmake -S "$tmp/few" -B "$tmp/few/build" -G Ninja >"$tmp/few-configure.log" 2>&1 ||
  { tail -n 30 "$tmp/few-configure.log"; fail "the release of labs 01 and 03 does not configure"; }
ninja -C "$tmp/few/build" -t targets all | sed 's/: [^:]*$//' >"$tmp/few-targets.txt"
grep -qx "bin/sim/lab03" "$tmp/few-targets.txt" && ! grep -qx "bin/sim/lab02" "$tmp/few-targets.txt" ||
  fail "the release of labs 01 and 03 builds other labs' programs, or not its own"
echo "ok: --labs 1,03 releases labs 01 and 03 alone, and it configures; --labs 11 is refused"

# The README's first commands, in the release.
grep -q '^./synclab demo' "$out/README.md" || fail "the release's README does not start with ./synclab demo"
cd "$out" || exit 1
echo "\$ ./synclab demo   (in the release)"
env -u DISPLAY -u WAYLAND_DISPLAY ./synclab demo >"$tmp/demo.log" 2>&1 || { tail -n 40 "$tmp/demo.log"; fail "./synclab demo failed in the release"; }
grep -q "Demo done: all three outcomes as expected" "$tmp/demo.log" || { tail -n 20 "$tmp/demo.log"; fail "the demo's outcomes"; }
echo "ok: ./synclab demo in the release: $(grep 'Demo done' "$tmp/demo.log")"

# The release's build graph is complete: every input of every target (every lab's harness
# program, graded tests and scenarios among them) is a file of the release or the output of a rule
# (a step that needs a file the release lacks would fail there); the labs' quoted includes were
# checked above. Then the harness programs of labs 01 and 03 build: each of the others is built
# and run on the skeletons in the tree (labs.NN-*.skeleton_program), with the same CMake code, so
# building all ten here again would find nothing new for minutes of compiling.
labs=() programs=()
for dir in labs/[0-9][0-9]-*/; do labs+=("$(basename "$dir" | cut -c1-2)"); done
mapfile -t programs < <(sed -n 's/^ *PROGRAM \([A-Za-z0-9_]*\).*/\1/p' labs/CMakeLists.txt)
[ ${#labs[@]} -ge 3 ] && [ ${#programs[@]} = ${#labs[@]} ] || fail "labs ${labs[*]} vs harness programs ${programs[*]}"
ninja -C build -t targets all | sed 's/: [^:]*$//' | sort -u >"$tmp/outputs.txt"
ninja -C build -t inputs all | sort -u >"$tmp/inputs.txt"
missing="$(cd build && comm -23 "$tmp/inputs.txt" "$tmp/outputs.txt" | while IFS= read -r f; do [ -e "$f" ] || echo "$f"; done)"
[ -z "$missing" ] || fail "the release's build needs files it does not hold: $(tr '\n' ' ' <<<"$missing")"
for prog in "${programs[@]}"; do
  grep -qx "bin/sim/$prog" "$tmp/outputs.txt" || fail "the release's build graph has no bin/sim/$prog"
done
echo "ok: the release's build graph ($(wc -l <"$tmp/outputs.txt") outputs, ${programs[*]} among them) has every input"
built=("${programs[0]}" "${programs[2]}")
echo "\$ cmake --build build --target ${built[*]}   (in the release)"
cmake --build build --target "${built[@]}" >"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log"; fail "the labs' harness programs do not build in the release"; }
echo "ok: the release builds ${built[*]}"
[ ! -e build/bin/sim/lab01_solutions ] || fail "the release built a solutions program"

# Those harness programs run: their help, then every task's check once (round robin, its), which
# the untouched skeletons do not pass (exit 1), without a crash or a usage error.
for prog in "${built[@]}"; do
  build/bin/sim/"$prog" help >"$tmp/$prog-help.log" 2>&1 || { cat "$tmp/$prog-help.log"; fail "$prog help exited with status $?"; }
  grep -q "^usage: $prog COMMAND" "$tmp/$prog-help.log" || { cat "$tmp/$prog-help.log"; fail "$prog help prints no usage"; }
  SYNCLAB_QUIET=1 timeout 300 build/bin/sim/"$prog" all --sched rr --model its >"$tmp/$prog-all.log" 2>&1
  status=$?
  [ $status = 1 ] || { tail -n 30 "$tmp/$prog-all.log"; fail "$prog all on the skeletons exited with status $status (expected 1: checks not passed)"; }
  grep -q "of the checks did not pass" "$tmp/$prog-all.log" || { tail -n 30 "$tmp/$prog-all.log"; fail "$prog all printed no summary"; }
  echo "ok: $prog help; $prog all on the skeletons: $(tail -n 1 "$tmp/$prog-all.log")"
done

# `./synclab grade` on untouched skeletons in the release: a results.json with every case failed
# or partly scored, not an error (lab 01: every case fails, score 0). Lab 01 only (lab 03 is
# graded below, for its speed case): grading compiles the lab's student files again and runs every
# case, the longest part of this test; every lab's skeletons are graded in the tree by the cases
# grader.case.skeleton-NN, with the same grader, and what a release could lack for another lab is
# a file, which the build graph check above finds.
grade_labs=(01)
for nn in "${grade_labs[@]}"; do
  echo "\$ ./synclab grade --lab $nn   (the untouched skeletons)"
  ./synclab grade --lab "$nn" --quiet --results "$tmp/results-$nn.json" >"$tmp/grade-$nn.log" 2>&1 ||
    { cat "$tmp/grade-$nn.log"; fail "grading lab $nn in the release failed"; }
  python3 - "$tmp/results-$nn.json" "$nn" <<'PY' || fail "the release's grading result for lab $nn"
import json, sys
j, nn = json.load(open(sys.argv[1])), sys.argv[2]
tests = j["tests"]
total = sum(t["max_score"] for t in tests)
assert len(tests) >= 5, f"lab {nn}: {len(tests)} test cases"
assert j["score"] < total, f"lab {nn}: the skeletons score {j['score']} of {total}"
assert any(t["status"] == "failed" for t in tests), f"lab {nn}: no case failed"
if nn == "01":
    assert j["score"] == 0 and all(t["status"] == "failed" for t in tests), f"lab 01: score {j['score']}"
print(f"ok: lab {nn}: the skeletons score {j['score']} of {total} in the release "
      f"({sum(t['status'] == 'failed' for t in tests)} of {len(tests)} cases failed)")
PY
done

# A failed case's replay line, run as printed in the release, runs the harness program that
# grading kept (built from the graded files), not the release's build/bin/sim/lab01: the same
# task with the same options, a check that does not pass (exit 1; 2 would be a usage error).
replay="$(python3 -c 'import json,re,sys
for t in json.load(open(sys.argv[1]))["tests"]:
    m = re.search(r"replay: (\S.*)", t["output"])
    if m: print(m.group(1)); break' "$tmp/results-01.json")"
case "$replay" in
  "$tmp/results-01-programs/lab01 "*) ;;
  *) fail "lab 01's replay line in the release does not run the kept $tmp/results-01-programs/lab01: '$replay'" ;;
esac
SYNCLAB_QUIET=1 timeout 300 bash -c "$replay" >"$tmp/replay.log" 2>&1
status=$?
[ $status = 1 ] || { tail -n 30 "$tmp/replay.log"; fail "\$ $replay exited with status $status (expected 1: the check does not pass)"; }
! grep -q "^usage:\|unknown command" "$tmp/replay.log" || { tail -n 30 "$tmp/replay.log"; fail "\$ $replay: the kept harness does not take the replay line"; }
echo "ok: the release's replay line runs the kept harness: \$ $replay"

# Speed is scored in the release as in the course's grader: against the reference's simulated
# time recorded when the release was made (labs/03-atomic-locks/reference-times.tsv), where the
# tree's grader measures the reference in the same run. The slow contention.cu of
# tests/grader/cases/slow-03 graded in the release must quote the very reference time, and get
# the very score, that the tree's approved result for that case has (measured there): a recorded
# time that is off shows in both, and one grading checks it (the reference's own contention.cu
# would only show 1.00x).
[ -s labs/03-atomic-locks/reference-times.tsv ] || fail "the release has no labs/03-atomic-locks/reference-times.tsv"
rm -rf "$tmp/sub" && mkdir -p "$tmp/sub" && cp "$root"/solutions/03-atomic-locks/*.cu "$tmp/sub/" &&
  cp "$root/tests/grader/cases/slow-03/contention.cu" "$tmp/sub/contention.cu"
echo "\$ ./synclab grade --lab 03   (the slow contention.cu of tests/grader/cases/slow-03)"
./synclab grade --lab 03 --submission "$tmp/sub" --quiet --results "$tmp/speed.json" >"$tmp/speed.log" 2>&1 ||
  { cat "$tmp/speed.log"; fail "grading lab 03 in the release failed"; }
python3 - "$tmp/speed.json" "$root/tests/grader/approved/slow-03.json" <<'PY' || fail "the release's speed case for the slow contention.cu"
import json, re, sys
def speed(path):
    [t] = [t for t in json.load(open(path))["tests"] if "speed" in t["tags"]]
    ref = re.search(r"the reference solution's ([0-9.]+) ms", t["output"])
    assert ref, f"{path}: the speed case does not quote the reference's time: {t['output']}"
    return t, ref.group(1)
got, got_ref = speed(sys.argv[1])
want, want_ref = speed(sys.argv[2])
assert "recorded in this release's reference-times.tsv" in got["output"], got["output"]
assert got_ref == want_ref, f"reference time {got_ref} ms in the release, {want_ref} ms measured in the tree"
assert abs(got["score"] - want["score"]) < 1e-9, (got["score"], want["score"], got["output"])
print(f"ok: speed case in the release: {got['score']} of {got['max_score']} as in the tree; {got['output'][:110]}")
PY
