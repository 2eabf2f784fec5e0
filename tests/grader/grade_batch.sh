#!/usr/bin/env bash
# `./synclab grade --lab 01 --batch DIR` grades a folder of mixed submissions into one results.json
# each and gradebook.csv: the reference solution (a folder) gets every point, the untouched
# skeletons (a zip whose files sit in a top folder) none, a file that does not compile gets 0 with
# the reason in its status, a file that is no zip is not graded and says why; two gradings run at
# once; a second run grades only what is new or changed (the failed one again), and --again all.
# Each is graded with its student's id: the email in submission_metadata.yml, else its name.
#
#   grade_batch.sh SOURCE_ROOT
set -uo pipefail
root="$(cd "$1" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
fail() { echo "grade_batch.sh: FAILED: $*"; exit 1; }
in="$tmp/in" out="$tmp/out"
mkdir -p "$in/skel/top"
cp -r "$root/solutions/01-data-races" "$in/ref"
"$root/tests/grader/findbug_answer.sh" "$root/build/bin/synclab-grade" 01 ada@example.edu "$in/ref"
cp "$root"/labs/01-data-races/{increment,histogram,sssp}.cu "$in/skel/top/"
(cd "$in/skel" && python3 -m zipfile -c "$in/skeleton.zip" top) && rm -rf "$in/skel"
cp -r "$root/solutions/01-data-races" "$in/broken" && echo "this line does not compile" >>"$in/broken/increment.cu"
echo "not a zip" >"$in/corrupt.zip"
# Gradescope's export names each submission's submitters: their email is the student's id.
cat >"$in/submission_metadata.yml" <<'YML'
ref:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
  :created_at: 2026-12-01 10:00:00.000000000 Z
YML

cd "$root" || exit 1
./synclab grade --lab 01 --batch "$in" --out "$out" --jobs 2 >"$tmp/first.log" 2>&1 || { cat "$tmp/first.log"; fail "the batch exited with status $?"; }
cat "$tmp/first.log"
grep -q "^grading 4 of 4 submissions of lab 01" "$tmp/first.log" || fail "the batch's first line"
grep -q "^\[4/4\] .*left, about 0m00s)" "$tmp/first.log" || fail "no progress line with the time left for the last one"
python3 - "$out/gradebook.csv" <<'PY' || fail "the gradebook (above)"
import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert sorted(rows) == ["broken", "corrupt", "ref", "skeleton"], sorted(rows)
ref, skel, broken, corrupt = rows["ref"], rows["skeleton"], rows["broken"], rows["corrupt"]
assert ref["status"] == "graded" and float(ref["total"]) == float(ref["max_score"]) > 0, ref
assert skel["status"] == "graded" and float(skel["total"]) == 0 and skel["max_score"] == ref["max_score"], skel
assert broken["status"].startswith("graded: the submission did not compile") and float(broken["total"]) == 0, broken
assert corrupt["status"].startswith("not graded:") and "zip" in corrupt["status"], corrupt
cases = list(ref.keys())[4:]
assert len(cases) >= 5 and sum(float(ref[c]) for c in cases) == float(ref["total"]), cases
print(f"ok: gradebook: ref {ref['total']}/{ref['max_score']}, skeleton 0, broken: {broken['status'][:50]}, "
      f"corrupt: {corrupt['status']}; {len(cases)} case columns")
PY
for s in ref skeleton broken; do [ -s "$out/$s.json" ] || fail "no $out/$s.json"; done
grep -q "Student id: 'ada@example.edu'" "$out/ref.json" || fail "ref was not graded with the email of submission_metadata.yml"
grep -q "Student id: 'skeleton'" "$out/skeleton.json" || fail "skeleton was not graded with its name as the student id"
echo "ok: student ids: the email of submission_metadata.yml (ref), else the submission's name (skeleton)"

./synclab grade --lab 01 --batch "$in" --out "$out" >"$tmp/second.log" 2>&1 || fail "the second run exited with status $?"
grep -q "^grading 1 of 4 submissions .*(3 graded before: kept)" "$tmp/second.log" || { cat "$tmp/second.log"; fail "the second run did not keep the graded ones"; }
touch "$in/broken/increment.cu"
./synclab grade --lab 01 --batch "$in" --out "$out" >"$tmp/third.log" 2>&1 || fail "the third run exited with status $?"
grep -q "^grading 2 of 4 submissions" "$tmp/third.log" || { cat "$tmp/third.log"; fail "a changed submission was not graded again"; }
./synclab grade --lab 01 --batch "$in" --out "$out" --again --jobs 2 >"$tmp/again.log" 2>&1 || fail "--again exited with status $?"
grep -q "^grading 4 of 4 submissions" "$tmp/again.log" || { cat "$tmp/again.log"; fail "--again did not grade all"; }
echo "ok: a second run grades only the one not graded, a changed file is graded again, --again grades all"
