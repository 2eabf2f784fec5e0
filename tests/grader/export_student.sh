#!/usr/bin/env bash
# `./synclab export-student` writes a student release that holds no reference solution, no
# wrong-solution fixture and no hidden test or grader case, refuses to overwrite a non-empty
# directory, and builds and runs from its own README: `./synclab demo` there, then
# `./synclab grade --lab 01` grades the untouched skeletons with no points.
#
#   export_student.sh SOURCE_ROOT
set -uo pipefail
root="$(cd "$1" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # as on Gradescope: the submission's unprivileged user reads the build
fail() { echo "export_student.sh: FAILED: $*"; exit 1; }
out="$tmp/release"

"$root/synclab" export-student "$out" || fail "export-student exited with status $?"
for gone in solutions tests/labs/wrong tests/grader .ci; do
  [ ! -e "$out/$gone" ] || fail "the release holds $gone"
done
[ -f "$out/STUDENT-RELEASE.md" ] || fail "STUDENT-RELEASE.md is missing"
for need in README.md synclab labs/01-data-races/README.md labs/01-data-races/histogram.cu grader/src/grader.cpp; do
  [ -f "$out/$need" ] || fail "the release lacks $need"
done
# No reference solution under another name: compare every file's contents.
sums="$(cd "$out" && find . -type f -exec sha256sum {} + | cut -d' ' -f1 | sort -u)"
while IFS= read -r f; do
  grep -qx "$(sha256sum <"$root/$f" | cut -d' ' -f1)" <<<"$sums" && fail "the release holds a copy of $f"
done < <(cd "$root" && find solutions -type f)
echo "ok: nothing of solutions/, tests/labs/wrong/, tests/grader/ in $(find "$out" -type f | wc -l) files"

# A second export into the same directory is refused and changes nothing.
before="$(find "$out" -type f | wc -l)"
if "$root/synclab" export-student "$out" >"$tmp/again.log" 2>&1; then fail "exporting into a non-empty directory succeeded"; fi
grep -q "not empty" "$tmp/again.log" || fail "the refusal does not say why: $(cat "$tmp/again.log")"
[ "$(find "$out" -type f | wc -l)" = "$before" ] || fail "the refused export changed the directory"
echo "ok: a second export into it is refused: $(head -n 1 "$tmp/again.log")"

# The README's first commands, in the release.
grep -q '^./synclab demo' "$out/README.md" || fail "the release's README does not start with ./synclab demo"
cd "$out" || exit 1
echo "\$ ./synclab demo   (in the release)"
env -u DISPLAY -u WAYLAND_DISPLAY ./synclab demo >"$tmp/demo.log" 2>&1 || { tail -n 40 "$tmp/demo.log"; fail "./synclab demo failed in the release"; }
grep -q "Demo done: all three outcomes as expected" "$tmp/demo.log" || { tail -n 20 "$tmp/demo.log"; fail "the demo's outcomes"; }
echo "ok: ./synclab demo in the release: $(grep 'Demo done' "$tmp/demo.log")"
[ ! -e build/bin/sim/lab01_solutions ] || fail "the release built a solutions program"
echo "\$ ./synclab grade --lab 01   (the untouched skeletons)"
./synclab grade --lab 01 --quiet --results "$tmp/results.json" >"$tmp/grade.log" 2>&1 || { cat "$tmp/grade.log"; fail "grading in the release failed"; }
python3 - "$tmp/results.json" <<'PY' || fail "the release's grading result"
import json, sys
j = json.load(open(sys.argv[1]))
tests = j["tests"]
assert len(tests) >= 9, f"{len(tests)} test cases"
assert j["score"] == 0, f"score {j['score']} for the skeletons"
assert all(t["status"] == "failed" for t in tests)
print(f"ok: the skeletons score {j['score']} of {sum(t['max_score'] for t in tests)} in the release")
PY

# Speed is scored in the release as in the course's grader: against the reference's simulated
# time recorded when the release was made (labs/03-atomic-locks/reference-times.tsv). The
# reference's own contention.cu is 1.00x of it; the slow one of tests/grader/cases/slow-03 is not.
[ -s labs/03-atomic-locks/reference-times.tsv ] || fail "the release has no labs/03-atomic-locks/reference-times.tsv"
speed_case() {  # speed_case CONTENTION_CU EXPECTED_SCORE
  rm -rf "$tmp/sub" && mkdir -p "$tmp/sub" && cp "$root"/solutions/03-atomic-locks/*.cu "$tmp/sub/" && cp "$1" "$tmp/sub/contention.cu"
  ./synclab grade --lab 03 --submission "$tmp/sub" --quiet --results "$tmp/speed.json" >"$tmp/speed.log" 2>&1 ||
    { cat "$tmp/speed.log"; fail "grading lab 03 in the release failed"; }
  python3 - "$tmp/speed.json" "$2" <<'PY' || fail "the release's speed score for $1"
import json, sys
j = json.load(open(sys.argv[1]))
[t] = [t for t in j["tests"] if "speed" in t["tags"]]
assert "recorded in this release's reference-times.tsv" in t["output"], t["output"]
assert abs(t["score"] - float(sys.argv[2])) < 1e-9, (t["score"], t["output"])
print(f"ok: speed case in the release: {t['score']} of {t['max_score']}: {t['output'][:110]}")
PY
}
speed_case "$root/solutions/03-atomic-locks/contention.cu" 1
speed_case "$root/tests/grader/cases/slow-03/contention.cu" "$(python3 -c 'import json; print([t["score"] for t in json.load(open("'"$root"'/tests/grader/approved/slow-03.json"))["tests"] if "speed" in t["tags"]][0])')"
