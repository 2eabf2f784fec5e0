#!/usr/bin/env bash
# slide_figure.sh ROOT VIZ TRACES ARTIFACTS: a slide's figure exported as scripts/build-slides
# exports it (scripts/scenarios.sh: the slide's size and scenario_figure_style), on traces the
# tests recorded: lab 09's simd-deadlock with its scenario's own options (labs/09-*/scenarios.txt;
# when the lab is there) and the flagship's Source and Reports. Its --dump-layout: the slide's size,
# the lecture font, and no drawn text with an absolute path of this machine (ROOT, /work/, /home/):
# the source file is drawn as labs/... or demo/..., and the reports' file:line texts too. The
# same figure without --relative-to names ROOT (the check can fail).
set -u
root=$1 viz=$2 traces=$3 art=$4
# shellcheck source=scripts/scenarios.sh
. "$root/scripts/scenarios.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
dir="$art/slide_figure"
rm -rf "$dir" && mkdir -p "$dir"
style=()
scenario_figure_style "$root" style
[ "${style[*]}" = "--lecture --relative-to $root" ] || fail "the figures' style: '${style[*]}'"

# The texts a layout dump drew, one a line.
texts() {
  tr -d '\n' <"$1" | grep -o '"texts": \[.*\]' | grep -oE '"what": "([^"\\]|\\.)*"' | sed 's/^"what": "//; s/"$//'
}

# figure NAME TRACE CHECK-SOURCE OPTIONS...: exports TRACE in the figures' style and checks it.
figure() {
  local name="$1" trace="$2" want_source="$3"
  shift 3
  local json="$dir/$name.json"
  if ! "$viz" "$trace" --export "$dir/$name.png" --size "$scenario_slide_size" "${style[@]}" "$@" \
      --dump-layout "$json" >"$dir/$name.log" 2>&1; then
    fail "$name: synclab-viz failed: $(cat "$dir/$name.log")"
    return
  fi
  { tr -d ' \n' <"$json" | grep -q "\"width\":${scenario_slide_size%x*}[,}]" &&
    tr -d ' \n' <"$json" | grep -q "\"height\":${scenario_slide_size#*x}[,}]"; } ||
    fail "$name: not at the slide's size $scenario_slide_size"
  tr -d ' \n' <"$json" | grep -q '"font":{[^}]*"size_px":22' || fail "$name: not in the lecture font (22 px at 720 lines)"
  texts "$json" >"$dir/$name.texts"
  [ "$(wc -l <"$dir/$name.texts")" -ge 5 ] || fail "$name: only $(wc -l <"$dir/$name.texts") texts recorded"
  if grep -E -e "$root" -e '/work/' -e '/home/' "$dir/$name.texts" >"$dir/$name.absolute"; then
    fail "$name: texts with an absolute path: $(head -c 600 "$dir/$name.absolute")"
  fi
  [ -z "$want_source" ] || grep -qxF "$want_source" "$dir/$name.texts" ||
    fail "$name: the source file is not drawn as $want_source: $(grep -E '\.(cu|cuh)' "$dir/$name.texts" | head -3)"
}

lab09="$(ls -d "$root"/labs/09-*/ 2>/dev/null | head -n 1)"
if [ -n "$lab09" ] && [ -s "$traces/lab09_simd_deadlock.trace" ]; then
  line="$(scenario_lines "${lab09}scenarios.txt" | grep '^simd-deadlock *|')"
  opts=()
  scenario_viz_options "$(cut -d'|' -f4- <<<"$line")" opts || fail "lab 09's simd-deadlock: its options were refused"
  lab09_rel="${lab09#"$root"/}"
  figure 09-simd-deadlock "$traces/lab09_simd_deadlock.trace" "${lab09_rel}tinylock.cuh" "${opts[@]}"
  # Its report in the Reports window: the text names the file and line of each party.
  figure 09-simd-deadlock-report "$traces/lab09_simd_deadlock.trace" "" --report 0 --window reports
  grep -qF "at ${lab09_rel}tinylock.cuh:" "$dir/09-simd-deadlock-report.texts" ||
    fail "09-simd-deadlock-report: no 'at ${lab09_rel}tinylock.cuh:LINE' in the report's text"
fi
figure flagship-source "$traces/flagship.trace" "demo/naive_intra_warp_lock.cu" --step report:0 --window source
figure flagship "$traces/flagship.trace" "" --step report:0

# Without --relative-to the same figure draws this machine's path (what the option removes).
"$viz" "$traces/flagship.trace" --export "$dir/absolute.png" --size "$scenario_slide_size" --lecture \
  --step report:0 --window source --dump-layout "$dir/absolute.json" >/dev/null 2>&1
texts "$dir/absolute.json" | grep -qF "$root/demo/naive_intra_warp_lock.cu" ||
  fail "without --relative-to the Source window does not draw $root/demo/naive_intra_warp_lock.cu"

[ $fails = 0 ] && echo "slide figures: ok" && exit 0
exit 1
