#!/usr/bin/env bash
# tests/grader/findbug_answer.sh GRADER LAB STUDENT DEST: writes the reference answer of lab LAB's
# find-the-bug task for student id STUDENT ("" for none) into the submission directory DEST:
# findbug.cu (the program drawn for the id with its reference fix, solutions/NN-topic/findbug/
# NAME.patch, applied) and
# findbug.txt (the first line answers.tsv accepts). Nothing when the lab has no pool.
#
#   tests/grader/findbug_answer.sh GRADER LAB STUDENT DEST EDITS
# writes findbug.cu from the file EDITS of a grader case (case_submission.sh) instead: the program
# drawn, as handed out ("from: handed-out") or with its reference fix ("from: fix"), with each
# "edit: TEXT => REPLACEMENT" applied ("\n" in it is a line break; TEXT must occur exactly once).
# Lines starting with # are comments. findbug.txt is written as without EDITS.
set -euo pipefail
grader=$1 lab=$2 student=$3 dest=$4 edits=${5:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
soldir=$(ls -d "$root"/solutions/"$lab"-*/ 2>/dev/null | head -n 1)
[ -n "$soldir" ] && [ -f "$soldir/findbug/answers.tsv" ] || exit 0
name=$("$grader" findbug --lab "$lab" --student "$student" | cut -f1)
[ -f "$soldir/findbug/$name.patch" ] || { echo "findbug_answer.sh: no reference fix for '$name'" >&2; exit 2; }
line=$(awk -F'\t' -v n="$name" '$1 == n { split($2, a, ","); print a[1] }' "$soldir/findbug/answers.tsv")
labdir=$root/labs/$(basename "$soldir")
patch -s -o "$dest/findbug.cu" "$labdir/findbug/$name.cu" "$soldir/findbug/$name.patch"
if [ -n "$edits" ]; then
  from=$(sed -n 's/^from:[[:space:]]*//p' "$edits" | head -n 1)
  case $from in
    handed-out) cp "$labdir/findbug/$name.cu" "$dest/findbug.cu" ;;
    fix) ;;
    *) echo "$edits: 'from: handed-out' or 'from: fix' wanted, not '$from'" >&2; exit 2 ;;
  esac
  python3 - "$dest/findbug.cu" "$edits" <<'PY' || exit 2
import sys
target, edits = sys.argv[1], sys.argv[2]
text = open(target).read()
for number, line in enumerate(open(edits).read().splitlines(), 1):
    if not line.startswith("edit:"):
        continue
    old, sep, new = line[len("edit:"):].strip().partition(" => ")
    old, new = old.replace("\\n", "\n"), new.replace("\\n", "\n")
    if not sep or text.count(old) != 1:
        sys.exit(f"{edits}:{number}: the text before ' => ' must occur exactly once in the program "
                 f"(it occurs {text.count(old) if sep else 0} times)")
    text = text.replace(old, new)
open(target, "w").write(text)
PY
fi
printf 'program: %s\nline: %s\n' "$name" "$line" > "$dest/findbug.txt"
