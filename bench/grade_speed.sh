#!/usr/bin/env bash
# bench/grade_speed.sh: how long a student waits for a verdict. For each lab, from its reference
# solution copied into a fresh submission folder, complete as at the end of a lab (the student
# files and the find-the-bug answer: findbug.cu, the pool's first program with its reference fix;
# findbug.txt, its line):
#   first     ./synclab grade of the submission (its files compiled for the first time);
#   regrade   the same again after one student file changed (a function added to the first: a
#             change the compiler sees, unlike a comment, which a compiler cache may skip); the
#             other files come from the grader's object cache, which starts empty for each first
#             grade (SYNCLAB_OBJECT_CACHE, a new directory per lab and round);
#   harness   the tree's own build of the lab's harness program (`cmake --build build --target
#             labNN`) after the same change to one student file of labs/NN-*/ (the file is
#             put back, and the harness built again, afterwards).
# The tree's build (build/) is brought up to date first and is not counted.
#
#   bench/grade_speed.sh [--labs "01 02 ..."] [--rounds N] [--parallel N] [--out FILE]
#
# Prints one row per lab and round (wall seconds) and writes them to FILE (default
# build/bench-grade-speed.txt). Goals (issue "Speed"): first at most 15 s, regrade and harness at
# most 5 s, on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
labs="01 02 03 04 05 06 07 08 09 10"
rounds=1
parallel=""
out=$here/build/bench-grade-speed.txt
while [ $# -gt 0 ]; do
  case $1 in
    --labs) labs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "grade_speed.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
cd "$here"
echo "grade_speed.sh: bringing build/ up to date (not counted) ..."
targets=()
for nn in $labs; do targets+=("synclab_grade_$nn" "lab$nn"); done
cmake --build build --target "${targets[@]}" >/dev/null
work=$(mktemp -d)
# Readable by others, as a student's tree is: run as root, the grader compiles as an unprivileged
# user, and a kept programs folder that user cannot read is given up for the work directory,
# which changes with every grading (no object of it is shared: docs/grader.md, item 2).
chmod 755 "$work"
edited=""  # (a lab file being edited: put back on any exit)
trap '[ -z "$edited" ] || cp "$work/original" "$edited"; rm -rf "$work"' EXIT
seconds() {  # seconds COMMAND...: runs it (output to $work/log), prints its wall time
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$work/log" 2>&1 || { echo "grade_speed.sh: failed: $*" >&2; tail -20 "$work/log" >&2; exit 1; }
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.2f}')"
}
par=()
[ -n "$parallel" ] && par=(--parallel "$parallel")
{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(git rev-parse --short HEAD) $(nproc) cores, ./synclab grade ${par[*]}"
  echo "# lab round first regrade harness (wall seconds)"
} | tee "$out"
for round in $(seq 1 "$rounds"); do
  for nn in $labs; do
    sol=$(ls -d solutions/"$nn"-*)
    lab=$(ls -d labs/"$nn"-*)
    sub="$work/sub-$nn-$round"
    rm -rf "$sub"
    cp -r "$sol" "$sub"
    rm -rf "$sub/findbug"
    if [ -d "$lab/findbug" ]; then
      fb=$(ls "$lab"/findbug/*.cu | head -1)
      fb_name=$(basename "$fb" .cu)
      cp "$fb" "$sub/findbug.cu"
      patch -s "$sub/findbug.cu" <"$sol/findbug/$fb_name.patch"
      fb_line=$(awk -F'\t' -v n="$fb_name" '$1 == n { split($2, a, ","); print a[1] }' "$sol/findbug/answers.tsv")
      echo "line: $fb_line" >"$sub/findbug.txt"
    fi
    first_file=$(cd "$sol" && ls ./*.cu 2>/dev/null | head -1)  # (the first student source file)
    first_file=${first_file#./}
    # a first grade compiles everything: an object cache of its own, empty (docs/grader.md)
    export SYNCLAB_OBJECT_CACHE="$work/cache-$nn-$round"
    first=$(seconds ./synclab grade --lab "$nn" --submission "$sub" --results "$work/r.json" --quiet "${par[@]}")
    grep -q '"score"' "$work/r.json"
    # (the find-the-bug answer graded as right: its two cases passed)
    python3 - "$work/r.json" <<'PY' || { echo "grade_speed.sh: lab $nn's find-the-bug answer did not pass" >&2; exit 1; }
import json, sys
tests = [t for t in json.load(open(sys.argv[1]))["tests"] if t["name"].startswith("Find the bug")]
sys.exit(0 if len(tests) == 2 and all(t["status"] == "passed" for t in tests) else 1)
PY
    edit="inline void synclab_bench_edit_${round}_$(date +%s%N)() {}"
    echo "$edit" >>"$sub/$first_file"
    regrade=$(seconds ./synclab grade --lab "$nn" --submission "$sub" --results "$work/r.json" --quiet "${par[@]}")
    cp "$lab/$first_file" "$work/original"
    edited="$lab/$first_file"
    echo "$edit" >>"$edited"
    harness=$(seconds cmake --build build --target "lab$nn")
    cp "$work/original" "$edited"
    edited=""
    cmake --build build --target "lab$nn" >/dev/null
    echo "$nn $round $first $regrade $harness" | tee -a "$out"
  done
done
