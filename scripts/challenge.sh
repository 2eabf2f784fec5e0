# ./synclab challenge [NN [NAME]] [--schedule FILE] [--solutions]: a lab scenario with a goal that
# you reach by steering the schedule. Sourced by ./synclab, which calls cmd_challenge (it uses
# ./synclab's bootstrap, configure_and_build, reconfigure_for_viz and die).
#
# labs/NN-topic/challenges.txt (docs/labs-authoring.md, "Challenges"):
#   program: P
#   NAME | harness arguments with {trace} | the goal in words | check (viz/core/challenge.h)
#
# With NAME: prints the goal and how to steer, records the untouched run to
# build/challenges/NN-NAME.trace, writes build/challenges/NN-NAME.challenge (what synclab-viz
# --challenge and synclab-challenge read), says whether the untouched run reaches the goal (it
# does not), and opens the trace in synclab-viz. --schedule FILE runs the harness with that
# schedule instead (SYNCLAB_SCHEDULE; docs/simulator.md, "Replaying a schedule") and says
# whether the goal is reached and in how many steps: steering without a display.

# challenge_lines FILE: the challenge lines (no comments, blank lines or the program line).
challenge_lines() { grep -vE '^[[:space:]]*(#|$|program:)' "$1"; }

# challenge_field LINE N: field N (1-based) of a challenge line, without surrounding blanks.
challenge_field() { awk -F'|' -v n="$2" '{ s = $n; gsub(/^[ \t]+|[ \t]+$/, "", s); print s }' <<<"$1"; }

cmd_challenge() {
  local nn="" name="" solutions=0 schedule=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --solutions) solutions=1 ;;
      --schedule)
        [ $# -ge 2 ] || { echo "synclab challenge: --schedule needs a file" >&2; exit 2; }
        schedule="$(abs_path "$2")"; shift ;;
      -*) echo "synclab challenge: unknown option '$1'" >&2; usage >&2; exit 2 ;;
      *) if [ -z "$nn" ]; then nn="$1"; elif [ -z "$name" ]; then name="$1";
         else echo "synclab challenge: too many arguments" >&2; exit 2; fi ;;
    esac
    shift
  done
  local files=()
  if [ -z "$nn" ]; then
    mapfile -t files < <(ls labs/[0-9][0-9]-*/challenges.txt 2>/dev/null)
    [ ${#files[@]} -gt 0 ] || die "challenge: no lab declares challenges (labs/NN-topic/challenges.txt)"
  else
    [[ "$nn" =~ ^[0-9]+$ ]] || die "challenge: '$nn' is not a lab number (e.g. 01)"
    nn="$(printf '%02d' "$((10#$nn))")"
    local dir
    dir="$(ls -d labs/"$nn"-*/ 2>/dev/null | head -n 1)"
    [ -n "$dir" ] || die "challenge: there is no lab $nn (no labs/$nn-*/ directory)"
    [ -f "${dir}challenges.txt" ] || die "challenge: lab $nn has no challenges (${dir}challenges.txt is missing)"
    files=("${dir}challenges.txt")
  fi
  if [ -z "$name" ] && [ -n "$schedule" ]; then
    die "challenge: --schedule needs a challenge: ./synclab challenge NN NAME --schedule FILE"
  fi
  if [ -z "$name" ]; then
    local f line
    for f in "${files[@]}"; do
      echo "challenges of lab $(basename "$(dirname "$f")" | cut -c1-2) ($(dirname "$f")); start one with ./synclab challenge NN NAME"
      while IFS= read -r line; do
        printf '  %-32s %s\n' "$(challenge_field "$line" 1)" "$(challenge_field "$line" 3)"
      done < <(challenge_lines "$f")
    done
    return 0
  fi
  [ -z "$schedule" ] || [ -f "$schedule" ] || die "challenge: --schedule $schedule: no such file"
  local file="${files[0]}" program line="" l
  program="$(sed -n 's/^program:[[:space:]]*//p' "$file" | head -n 1)"
  [ -n "$program" ] || die "challenge: $file has no 'program: NAME' line"
  while IFS= read -r l; do
    [ "$(challenge_field "$l" 1)" != "$name" ] || line="$l"
  done < <(challenge_lines "$file")
  if [ -z "$line" ]; then
    echo "synclab challenge: lab $nn has no challenge '$name'; it has:" >&2
    while IFS= read -r l; do echo "  $(challenge_field "$l" 1)" >&2; done < <(challenge_lines "$file")
    exit 2
  fi
  local args goal check
  args="$(challenge_field "$line" 2)"
  goal="$(challenge_field "$line" 3)"
  check="$(challenge_field "$line" 4)"
  if [ $solutions = 1 ]; then
    [ -d solutions ] || die "challenge --solutions: this is a student release; it has no solutions/"
    program="${program}_solutions"
  fi
  bootstrap --gui
  reconfigure_for_viz
  # What the challenge needs, and the viewer where this build has it (known once configured): one
  # build when build/ is configured already.
  local viz=build/bin/synclab-viz targets=("$program" synclab-challenge synclab-trace)
  has_viz() { [ -f build/build.ninja ] && ninja -C build -t targets all 2>/dev/null | grep -q '^synclab-viz:'; }
  local viz_built=0
  if has_viz; then
    targets+=(synclab-viz)
    viz_built=1
  fi
  configure_and_build default OFF 0 "${targets[@]}"
  if [ $viz_built = 0 ] && has_viz; then configure_and_build default OFF 0 synclab-viz; fi
  local exe=build/bin/sim/$program judge=build/bin/synclab-challenge
  [ -x "$exe" ] || die "$exe was not built; run ./synclab build and look for errors"
  [ -x "$judge" ] || die "$judge was not built; run ./synclab build and look for errors"
  mkdir -p build/challenges
  local base="build/challenges/$nn-$name"
  local cfile="$base.challenge" trace="$base.trace"
  printf 'lab: %s\nname: %s\ngoal: %s\ncheck: %s\nprogram: %s\nargs: %s\n' \
    "$nn" "$name" "$goal" "$check" "$exe" "$args" >"$cfile"
  echo "challenge $nn $name"
  echo "  goal: $goal"
  if [ -n "$schedule" ]; then
    trace="$base.steered.trace"
    rm -f "$trace"
    local run_args="${args//\{trace\}/$trace}" rc=0
    echo "\$ SYNCLAB_SCHEDULE=$schedule $exe $run_args"
    set -f
    # shellcheck disable=SC2086
    SYNCLAB_QUIET=1 SYNCLAB_SCHEDULE="$schedule" "$exe" $run_args >"$base.steered.log" 2>&1 || rc=$?
    set +f
    if [ $rc = 3 ]; then
      grep '^synclab: schedule ' "$base.steered.log" >&2 || tail -n 20 "$base.steered.log" >&2
      exit 3
    fi
    [ -s "$trace" ] || { tail -n 20 "$base.steered.log" >&2; die "the steered run recorded no trace ($trace)"; }
    if [ -x "$viz" ]; then echo "trace: $trace (open it: $viz $trace --challenge $cfile)"; else echo "trace: $trace"; fi
    "$judge" "$trace" "$cfile"
    return $?
  fi
  rm -f "$trace"
  local run_args="${args//\{trace\}/$trace}"
  echo "\$ $exe $run_args"
  set -f
  # shellcheck disable=SC2086
  SYNCLAB_QUIET=1 "$exe" $run_args >"$base.log" 2>&1
  set +f
  [ -s "$trace" ] || { tail -n 20 "$base.log" >&2; die "challenge $name recorded no trace ($trace)"; }
  echo "trace: $trace (the untouched run)"
  echo "  untouched run: $("$judge" "$trace" "$cfile")"
  cat <<EOF
how to steer: in synclab-viz, move to an event and Ctrl+click a lane of the warp that should run
next (right-click: the menu, with the lane's group under its); the viewer re-runs the program from
there and says whether the goal is reached (docs/viz.md, "Steering the schedule"). The viewer
picks warps only, never the value a load reads under relaxed memory: that takes a schedule file.
Without a display, or to pick a value: write a schedule (one 'step W' line per step; before a
step line, 'read L K' makes lane L's load in that step read the K-th newest value it may read,
0 the newest). The untouched run's schedule, whole or up to event E of launch 0, is
  build/bin/synclab-trace schedule $trace [--launch 0 --event E]
(docs/simulator.md, "Replaying a schedule"); then run
  ./synclab challenge $nn $name --schedule FILE
EOF
  [ -x "$viz" ] || { echo "the visualizer was not built (scripts/bootstrap --gui)"; return 0; }
  if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    if "$viz" --help 2>/dev/null | grep -q -- '--challenge'; then
      echo "\$ $viz $trace --challenge $cfile"
      "$viz" "$trace" --challenge "$cfile"
    else
      echo "\$ $viz $trace"
      "$viz" "$trace"
    fi
  fi
}
