#!/usr/bin/env bash
# tests/grader/findbug_answer.sh GRADER LAB STUDENT DEST: writes the reference answer of lab LAB's
# find-the-bug task for student id STUDENT ("" for none) into the submission directory DEST:
# findbug.cu (the program drawn for the id with its reference fix, solutions/NN-topic/findbug/
# NAME.patch, applied) and
# findbug.txt (the first line answers.tsv accepts). Nothing when the lab has no pool.
set -euo pipefail
grader=$1 lab=$2 student=$3 dest=$4
root=$(cd "$(dirname "$0")/../.." && pwd)
soldir=$(ls -d "$root"/solutions/"$lab"-*/ 2>/dev/null | head -n 1)
[ -n "$soldir" ] && [ -f "$soldir/findbug/answers.tsv" ] || exit 0
name=$("$grader" findbug --lab "$lab" --student "$student" | cut -f1)
[ -f "$soldir/findbug/$name.patch" ] || { echo "findbug_answer.sh: no reference fix for '$name'" >&2; exit 2; }
line=$(awk -F'\t' -v n="$name" '$1 == n { split($2, a, ","); print a[1] }' "$soldir/findbug/answers.tsv")
labdir=$root/labs/$(basename "$soldir")
patch -s -o "$dest/findbug.cu" "$labdir/findbug/$name.cu" "$soldir/findbug/$name.patch"
printf 'program: %s\nline: %s\n' "$name" "$line" > "$dest/findbug.txt"
