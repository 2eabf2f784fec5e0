#!/usr/bin/env bash
# run_check.sh: runs one program of tests/checks on the simulator and checks what the checkers
# said about it. Builds nothing.
#
#   run_check.sh --runner SYNCLAB_RUN --source FILE.cu MODE [options] -- PROGRAM [ARGS...]
#
# Modes
#   --expect KIND   the run must print at least one report "========= SyncLab SEV (KIND): ..."
#                   and every report it prints must be of that kind (and --severity, when
#                   given). Unless --any-line, every report must also name a line of the source
#                   that ends with the marker `// EXPECT(KIND)`: the "at FILE:LINE" line or, for
#                   race and sync reports (which name two places), any FILE:LINE in the report;
#                   and every marked line must be named by some report (see --some-marks).
#   --clean         no "========= SyncLab" line at all, exit status 0 and a line "PASS NAME".
#   --silent        no "========= SyncLab" line at all and exit status 0 (the program's own
#                   result is not judged: a racy program run where its race cannot be seen).
#
# Options
#   --runner PATH       synclab-run (required)
#   --source FILE       the program's CUDA source (required)
#   --name NAME         the name on the PASS line (default: the source's base name without .cu)
#   --model M           its | lockstep
#   --sched S           rr | random | pct
#   --seeds A-B         run every seed from A to B; --expect: every seed must satisfy it (the
#                       race is there whatever the schedule); --clean/--silent: every seed clean
#   --pct-depth D       synclab-run --pct-depth
#   --env VAR=VALUE     an environment variable for the program (repeatable)
#   --severity S        --expect: the reports must have severity S (ERROR or WARNING)
#   --title REGEX       --expect: at least one report's title must match REGEX (grep -E)
#   --details REGEX     --expect: some line of the reports (stderr) must match REGEX (grep -E);
#                       repeatable: every REGEX must match
#   --absent REGEX      --expect: no line of the reports may match REGEX (advice that would not
#                       help); repeatable
#   --with KIND2        --expect: reports of KIND2 are expected as well (at least one), at any
#                       line (a program-level WARNING such as "unfinished"); repeatable
#   --any-line          --expect: do not check the source lines
#   --some-marks        --expect: reports must name marked lines, but not every marked line
#   --run-timeout SEC   kill a run after SEC seconds (default 120) and count it as failed
# Exit status 0 when the expectation holds, 1 when it does not, 2 for a usage error.
set -u

runner="" source="" mode="" kind="" name="" model="" sched="" seeds="" pct_depth="" device=""
severity="" title_re="" any_line=0 some_marks=0 run_timeout=120
envs=() details_res=() absent_res=() with_kinds=()
die() { echo "run_check.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runner) runner=$2; shift 2 ;;
    --source) source=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --expect) mode=expect; kind=$2; shift 2 ;;
    --clean) mode=clean; shift ;;
    --silent) mode=silent; shift ;;
    --model) model=$2; shift 2 ;;
    --sched) sched=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --pct-depth) pct_depth=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --severity) severity=$2; shift 2 ;;
    --title) title_re=$2; shift 2 ;;
    --details) details_res+=("$2"); shift 2 ;;
    --absent) absent_res+=("$2"); shift 2 ;;
    --with) with_kinds+=("$2"); shift 2 ;;
    --any-line) any_line=1; shift ;;
    --some-marks) some_marks=1; shift ;;
    --run-timeout) run_timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ $# -ge 1 ] || die "no program given (... -- PROGRAM [ARGS])"
program=$1; shift
[ -n "$mode" ] || die "give --expect KIND, --clean or --silent"
[ -n "$runner" ] && [ -x "$runner" ] || { echo "FAILED: runner '$runner' is missing (did it build?)"; exit 1; }
[ -n "$source" ] && [ -f "$source" ] || { echo "FAILED: source '$source' is missing"; exit 1; }
[ -x "$program" ] || { echo "FAILED: program '$program' is missing (did it build?)"; exit 1; }
src_base=$(basename "$source")
[ -n "$name" ] || name=${src_base%.cu}

# The marked lines of the expected kind: "LINE" per line.
marks=""
if [ "$mode" = expect ] && [ $any_line -eq 0 ]; then
  marks=$(grep -nE "//[[:space:]]*EXPECT\(${kind}\)[[:space:]]*\$" "$source" | cut -d: -f1)
  [ -n "$marks" ] || { echo "FAILED: $src_base has no line marked // EXPECT($kind)"; exit 1; }
fi

if [ -n "$seeds" ]; then
  [[ "$seeds" =~ ^([0-9]+)-([0-9]+)$ ]] || die "--seeds wants A-B"
  seed_list=$(seq "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")
else
  seed_list=none
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sim_run_once, sim_list_reports ("SEVERITY KIND AT_LINE OTHER_LINES TITLE" per report) and
# sim_show_run.
. "$(dirname "$0")/../common/sim_reports.sh"

is_marked() {  # is_marked LINE
  local m
  for m in $marks; do [ "$m" = "$1" ] && return 0; done
  return 1
}

# Sets `why` and returns 1 when the last run does not satisfy the mode.
judge() {
  why=""
  if [ $status -eq 124 ] || [ $status -eq 137 ]; then why="killed after $run_timeout s"; return 1; fi
  if [ "$mode" != expect ]; then
    if grep -q '^========= SyncLab' "$tmp/out" "$tmp/err"; then why="a SyncLab report where none is expected"; return 1; fi
    if [ $status -ne 0 ]; then why="exit status $status (expected 0)"; return 1; fi
    if [ "$mode" = clean ] && ! grep -qxF "PASS $name" "$tmp/out"; then why="no line 'PASS $name'"; return 1; fi
    return 0
  fi
  [ $status -lt 128 ] || { why="the program died with exit status $status"; return 1; }
  local reports n=0 sev k at others lines title line ok named="" m
  reports=$(sim_list_reports)
  [ -n "$reports" ] || { why="no SyncLab report"; return 1; }
  local seen_with=" " w
  while read -r sev k at others title; do
    n=$((n + 1))
    if [[ " ${with_kinds[*]-} " == *" $k "* ]]; then seen_with+="$k "; continue; fi
    lines=$([ "$at" != 0 ] && echo "$at")
    [ "$others" != - ] && lines="${lines:+$lines,}$others"
    [ "$k" = "$kind" ] || { why="a ($k) report where only ($kind) is expected: $title"; return 1; }
    [ -z "$severity" ] || [ "$sev" = "$severity" ] || { why="a report of severity $sev where $severity is expected: $title"; return 1; }
    if [ $any_line -eq 0 ]; then
      ok=0
      if [ "$k" = race ] || [ "$k" = sync ]; then
        for line in ${lines//,/ }; do is_marked "$line" && { ok=1; named="$named $line"; }; done
      else
        is_marked "$at" && { ok=1; named="$named $at"; }
      fi
      [ $ok -eq 1 ] || { why="a ($k) report naming no marked line of $src_base (at line $at; lines named: $lines): $title"; return 1; }
    fi
  done <<<"$reports"
  for w in ${with_kinds[@]+"${with_kinds[@]}"}; do
    [[ "$seen_with" == *" $w "* ]] || { why="no ($w) report"; return 1; }
  done
  if [ $any_line -eq 0 ] && [ $some_marks -eq 0 ]; then
    for m in $marks; do
      [[ " $named " == *" $m "* ]] || { why="no report names the marked line $src_base:$m"; return 1; }
    done
  fi
  if [ -n "$title_re" ] && ! echo "$reports" | cut -d' ' -f5- | grep -qE -- "$title_re"; then
    why="no report title matches /$title_re/"; return 1
  fi
  local re
  for re in ${details_res[@]+"${details_res[@]}"}; do
    grep -qE -- "$re" "$tmp/err" || { why="no report line matches /$re/"; return 1; }
  done
  for re in ${absent_res[@]+"${absent_res[@]}"}; do
    ! grep -qE -- "$re" "$tmp/err" || { why="a report line matches /$re/, which must not appear"; return 1; }
  done
  why="$n report(s), all ($kind)${severity:+ $severity} at marked lines"
  return 0
}

for s in $seed_list; do
  sim_run_once "$s" "$@"
  label=$([ "$s" = none ] && echo "run" || echo "seed $s")
  if ! judge; then
    sim_show_run
    echo "reports found (severity, kind, at line, other lines of $src_base named, title):"
    sim_list_reports | sed 's/^/    /'
    echo "FAILED ($label): $why"
    exit 1
  fi
  echo "$label: ok ($mode${kind:+ $kind}): ${why:-clean}"
done
[ "$seed_list" = none ] && sim_show_run
echo "OK"
exit 0
