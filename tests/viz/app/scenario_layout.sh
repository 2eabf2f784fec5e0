#!/usr/bin/env bash
# scenario_layout.sh ROOT VIZ TRACE ARTIFACTS: a scenario's "layout:" field (scripts/scenarios.sh),
# read as ./synclab scenario and scripts/build-slides read it, and what synclab-viz --lecture makes
# of it: only the windows it names, given the whole picture (--dump-layout's window:KEY cells), at
# 1920x1080 and 1280x720. A layout naming something that is not a window is refused with the file,
# the line and the window names, by the script and by synclab-viz; every lab's scenarios.txt passes.
set -u
root=$1 viz=$2 trace=$3 art=$4
# shellcheck source=scripts/scenarios.sh
. "$root/scripts/scenarios.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
dir="$art/scenario_layout"
rm -rf "$dir" && mkdir -p "$dir"

# The windows a layout dump shows, sorted, on one line.
windows() { grep -o '"id": "window:[a-z]*"' "$1" | sed 's/.*window://; s/"//' | sort | tr '\n' ' '; }

cat >"$dir/scenarios.txt" <<'TXT'
# NAME | harness arguments | what it shows [| synclab-viz options] [| layout: WINDOWS]
program: demo
lock | run --trace {trace} | the lock and the lanes that spin on it | --step report:0 | layout: lanes, locks
all | run --trace {trace} | everything | --step report:0
TXT
lines="$(scenario_lines "$dir/scenarios.txt" 2>"$dir/lines.err")" || fail "scenario_lines refused a good layout: $(cat "$dir/lines.err")"
[ ! -s "$dir/lines.err" ] || fail "scenario_lines said: $(cat "$dir/lines.err")"
while IFS='|' read -r n _ _ v; do
  name="$(xargs <<<"$n")"
  opts=()
  scenario_viz_options "$v" opts || { fail "$name: its options were refused"; continue; }
  for size in 1920x1080 1280x720; do
    json="$dir/$name-$size.json"
    if ! "$viz" "$trace" --lecture --size "$size" --export "$dir/$name-$size.png" "${opts[@]}" \
        --dump-layout "$json" >"$dir/$name-$size.log" 2>&1; then
      fail "$name at $size: synclab-viz ${opts[*]} failed: $(cat "$dir/$name-$size.log")"
      continue
    fi
    got="$(windows "$json")"
    if [ "$name" = lock ]; then
      [ "${opts[*]}" = "--step report:0 --layout lanes,locks" ] || fail "lock: options '${opts[*]}'"
      [ "$got" = "lanes locks " ] || fail "lock at $size: windows '$got', not 'lanes locks'"
      # Given the whole picture: side by side, from the top to the bottom, no menu bar.
      w="${size%x*}" h="${size#*x}"
      tr -d ' \n' <"$json" | grep -Eq "\"id\":\"window:lanes\",\"rect\":\[0(\.0)?,0(\.0)?,[0-9.]+,$h(\.0)?\]" ||
        fail "lock at $size: Warp lanes does not start at the top left and reach the bottom"
      tr -d ' \n' <"$json" | grep -Eq "\"id\":\"window:locks\",\"rect\":\[[0-9.]+,0(\.0)?,$w(\.0)?,$h(\.0)?\]" ||
        fail "lock at $size: Lock bits & flags does not reach the right and bottom edges"
    else
      case "$got" in *lanes*locks*reports*source*timeline*) ;; *) fail "all at $size: windows '$got'" ;; esac
    fi
  done
done <<<"$lines"

# A layout naming something that is not a window.
printf '# x\nprogram: demo\nok | run | x\nbad | run | x | --step first | layout: lanes,lcks\n' >"$dir/bad.txt"
if scenario_lines "$dir/bad.txt" >/dev/null 2>"$dir/bad.err"; then fail "scenario_lines accepted layout: lanes,lcks"; fi
grep -q "^$dir/bad.txt:4: layout: 'lcks' is not a window (the windows: playback, lanes, locks, wavefront, timeline" \
  "$dir/bad.err" || fail "scenario_lines' message: $(cat "$dir/bad.err")"
opts=()
if scenario_viz_options " --step first | layout: lanes,lcks" opts 2>"$dir/bad2.err"; then
  fail "scenario_viz_options accepted layout: lanes,lcks"
fi
grep -q "'lcks' is not a window" "$dir/bad2.err" || fail "scenario_viz_options' message: $(cat "$dir/bad2.err")"
"$viz" "$trace" --lecture --layout lanes,lcks --export "$dir/bad.png" >"$dir/bad3.out" 2>&1
st=$?
[ $st = 2 ] || fail "synclab-viz --layout lanes,lcks: status $st, not 2"
grep -q "'lcks' is not a window name (playback, lanes, locks" "$dir/bad3.out" || fail "synclab-viz said: $(cat "$dir/bad3.out")"

# The labs' own scenarios.
for f in "$root"/labs/*/scenarios.txt; do
  [ -f "$f" ] || continue
  scenario_lines "$f" >/dev/null 2>"$dir/lab.err" || fail "$f: $(cat "$dir/lab.err")"
done

[ $fails = 0 ] && echo "scenario layouts: ok" && exit 0
exit 1
