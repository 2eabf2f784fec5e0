# Reading a lab's scenarios.txt (docs/labs-authoring.md, "Scenarios"); sourced by ./synclab
# (scenario) and scripts/build-slides, so that both read the file the same way.
#   program: P
#   NAME | harness arguments with {trace} | what it shows [| synclab-viz options]
#   gif: NAME | synclab-viz options of an animation of NAME's trace (scripts/build-slides exports
#               it as figures/NN-NAME.gif beside the PNG; e.g. --window wavefront --frames 40)

# scenario_program FILE: P of the "program:" line (nothing when there is none).
scenario_program() { sed -n 's/^program:[[:space:]]*//p' "$1" | head -n 1; }

# scenario_lines FILE: the scenario lines (no comments, blank lines, program or gif lines).
scenario_lines() { grep -vE '^[[:space:]]*(#|$|program:|gif:)' "$1"; }

# scenario_gif_lines FILE: the gif lines without "gif:" ("NAME | synclab-viz options").
scenario_gif_lines() { sed -n 's/^[[:space:]]*gif:[[:space:]]*//p' "$1"; }

# scenario_viz_options OPTIONS ARRAY: splits a scenario's synclab-viz options as the shell would
# (quotes respected) into the array named ARRAY. Status 1, with the reason on stderr, when they
# cannot be split (an unmatched quote).
scenario_viz_options() {
  local -n _opts="$2"
  local words
  _opts=()
  words="$(xargs -r printf '%s\n' <<<"$1" 2>&1)" || { echo "$words" >&2; return 1; }
  [ -z "$words" ] || mapfile -t _opts <<<"$words"
}

# scenario_untouched LABDIR: status 0 when the lab's student files are the skeletons as handed
# out (LABDIR/.skeleton.sha256, written by scripts/skeleton-hashes), 1 when one was changed or the
# list is missing.
scenario_untouched() {
  [ -f "$1/.skeleton.sha256" ] && (cd "$1" && sha256sum --check --status .skeleton.sha256 2>/dev/null)
}
