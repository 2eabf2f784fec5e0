# Sourced by run_case.sh and run_gpu.sh: a graded submission of tests/grader/cases/ built from its
# case.txt ("lab: NN", "base: solutions|labs", optionally "only: FILE...", "timeout: SECONDS",
# "hidden: DIR" relative to tests/grader, "student: ID" (the grader's --student); a file
# findbug.edits makes findbug.cu from the drawn find-the-bug program (findbug_answer.sh says how);
# every other file of the case directory is laid over the base, keeping its relative path,
# symbolic links as links).
#
#   case_submission ROOT CASE_DIR GRADE_DIR SUB
# fills SUB (emptied first) and sets case_lab, case_timeout, case_hidden and case_student; GRADE_DIR holds the
# labs' manifests (<build>/grade). Status 2 with a message when the case is malformed.
case_submission() {
  local root="$1" dir="${2%/}" grade_dir="$3" sub="$4"
  local spec="$dir/case.txt"
  [ -f "$spec" ] || { echo "$spec is missing" >&2; return 2; }
  _case_field() { sed -n "s/^$1:[[:space:]]*//p" "$spec" | head -n 1; }
  local base only labdir manifest files f
  case_lab="$(_case_field lab)" base="$(_case_field base)" only="$(_case_field only)"
  case_timeout="$(_case_field timeout)" case_hidden="$(_case_field hidden)" case_student="$(_case_field student)"
  labdir="$(ls -d "$root/$base/$case_lab"-*/ 2>/dev/null | head -n 1)"
  [ -n "$labdir" ] || { echo "$spec: no $base/$case_lab-*/ directory" >&2; return 2; }
  rm -rf "$sub" && mkdir -p "$sub" || return 2
  # The base: the student files the grader will look for (from the lab's manifest), or only some.
  manifest="$grade_dir/$(basename "$labdir").json"
  files="$(sed -n 's/.*"student_files": \[\(.*\)\],*/\1/p' "$manifest" | tr -d '",')"
  [ -n "$files" ] || { echo "$manifest names no student files" >&2; return 2; }
  [ -n "$only" ] && files="$only"
  for f in $files; do cp "$labdir/$f" "$sub/$f" || return 2; done
  # A reference submission answers the find-the-bug task too (the reference fix of the program
  # drawn for the case's student, and the line).
  if [ "$base" = solutions ] && [ -z "$only" ]; then
    "$root/tests/grader/findbug_answer.sh" "$(dirname "$grade_dir")/bin/synclab-grade" "$case_lab" "$case_student" "$sub" \
      "$([ -f "$dir/findbug.edits" ] && echo "$dir/findbug.edits")" || return 2
  fi
  # The overlay (symbolic links stay links: the grader must not follow them).
  (cd "$dir" && find . ! -type d ! -name case.txt ! -name findbug.edits -print0) | while IFS= read -r -d '' f; do
    mkdir -p "$sub/$(dirname "$f")"
    rm -f "$sub/$f"
    cp -P "$dir/$f" "$sub/$f"
  done
}
