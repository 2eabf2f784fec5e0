# Reading a lab's scenarios.txt (docs/labs-authoring.md, "Scenarios"); sourced by ./synclab
# (scenario) and scripts/build-slides, so that both read the file the same way.
#   program: P
#   NAME | harness arguments with {trace} | what it shows [| synclab-viz options] [| layout: WINDOWS]
#   gif: NAME | synclab-viz options of an animation of NAME's trace (scripts/build-slides exports
#               it as figures/NN-NAME.gif beside the PNG; e.g. --window wavefront --frames 40)
# A "layout: lanes,locks" field names the windows the scenario is about: synclab-viz --layout,
# which lecture mode (--lecture, and the slides' figures) honours by showing those windows only.

# scenario_program FILE: P of the "program:" line (nothing when there is none).
scenario_program() { sed -n 's/^program:[[:space:]]*//p' "$1" | head -n 1; }

# The windows a "layout:" field may name: synclab-viz's window keys (viz/app/app.cpp, kWindows).
scenario_windows="playback lanes locks wavefront timeline source reports legend help"

# scenario_layout_check KEYS: nothing when KEYS ("lanes, locks") names windows only; else why not.
scenario_layout_check() {
  local k keys
  IFS=',' read -ra keys <<<"$1"
  [ ${#keys[@]} -gt 0 ] || { echo "layout: names no window (the windows: ${scenario_windows// /, })"; return; }
  for k in "${keys[@]}"; do
    k="$(tr -d '[:space:]' <<<"$k")"
    case " $scenario_windows " in *" $k "*) continue ;; esac
    echo "layout: '$k' is not a window (the windows: ${scenario_windows// /, })"
    return
  done
}

# scenario_lines FILE: the scenario lines (no comments, blank lines, program or gif lines). Status
# 1, with FILE:LINE: and the reason on stderr for each, when a "layout:" field (of a scenario or a
# gif line) names something that is not a window.
scenario_lines() {
  local n=0 bad=0 line rest field why fields
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    [[ "$line" =~ ^[[:space:]]*# ]] && continue
    case "$line" in *layout:*) ;; *) continue ;; esac
    if [[ "$line" =~ ^[[:space:]]*gif: ]]; then rest="${line#*|}"; else rest="$(cut -s -d'|' -f4- <<<"$line")"; fi
    IFS='|' read -ra fields <<<"$rest"
    for field in "${fields[@]}"; do
      [[ "$field" =~ ^[[:space:]]*layout:(.*)$ ]] || continue
      why="$(scenario_layout_check "${BASH_REMATCH[1]}")"
      [ -z "$why" ] || { echo "$1:$n: $why" >&2; bad=1; }
    done
  done <"$1"
  grep -vE '^[[:space:]]*(#|$|program:|gif:)' "$1"
  local st=$?
  [ $bad = 0 ] || return 1
  return $st
}

# scenario_gif_lines FILE: the gif lines without "gif:" ("NAME | synclab-viz options").
scenario_gif_lines() { sed -n 's/^[[:space:]]*gif:[[:space:]]*//p' "$1"; }

# scenario_viz_options OPTIONS ARRAY: splits a scenario's synclab-viz options as the shell would
# (quotes respected) into the array named ARRAY; OPTIONS is what follows the third field, and a
# "layout: KEYS" field there becomes --layout KEYS. Status 1, with the reason on stderr, when they
# cannot be split (an unmatched quote) or the layout names something that is not a window.
scenario_viz_options() {
  local -n _opts="$2"
  local words field fields layout="" why
  _opts=()
  IFS='|' read -ra fields <<<"$1"
  for field in "${fields[@]}"; do
    if [[ "$field" =~ ^[[:space:]]*layout:(.*)$ ]]; then
      why="$(scenario_layout_check "${BASH_REMATCH[1]}")"
      [ -z "$why" ] || { echo "$why" >&2; return 1; }
      layout="$(tr -d '[:space:]' <<<"${BASH_REMATCH[1]}")"
      continue
    fi
    words="$(xargs -r printf '%s\n' <<<"$field" 2>&1)" || { echo "$words" >&2; return 1; }
    [ -z "$words" ] || mapfile -t -O "${#_opts[@]}" _opts <<<"$words"
  done
  [ -z "$layout" ] || _opts+=(--layout "$layout")
}

# The slides' figures (scripts/build-slides): a Marp slide's size (16:9, 1280x720 pixels; a figure
# of another size says so with --size in its options) ...
scenario_slide_size=1280x720
# ... and scenario_figure_style ROOT ARRAY: the synclab-viz options every figure is exported with,
# into the array named ARRAY: lecture mode (the projector's palette, font and layout, a scenario's
# "layout:" honoured) and the paths under ROOT, the repository, drawn relative to it.
scenario_figure_style() {
  local -n _style="$2"
  _style=(--lecture --relative-to "$1")
}

# scenario_untouched LABDIR: status 0 when the lab's student files are the skeletons as handed
# out (LABDIR/.skeleton.sha256, written by scripts/skeleton-hashes), 1 when one was changed or the
# list is missing.
scenario_untouched() {
  [ -f "$1/.skeleton.sha256" ] && (cd "$1" && sha256sum --check --status .skeleton.sha256 2>/dev/null)
}
