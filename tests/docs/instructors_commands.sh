#!/usr/bin/env bash
# Runs every command that docs/instructors.md shows, in order: each "$ command" line of its
# ```console blocks, from the root of the tree (whose build/ the commands use, as the guide says),
# with a fresh, empty home directory (the guide's ~/course/ goes there) and no display (scenarios
# write pictures instead of opening the viewer). Fails with the command and its output when one
# exits non-zero, and when the guide shows no command at all.
#
#   instructors_commands.sh SOURCE_ROOT BUILD_DIR
set -uo pipefail
root="$(cd "$1" && pwd)"
build="$(cd "$2" && pwd)"
guide="$root/docs/instructors.md"
fail() { echo "instructors_commands.sh: FAILED: $*"; exit 1; }

[ -f "$guide" ] || fail "$guide is missing"
# The guide's commands use ./synclab, which always works in the tree's build/.
[ -d "$root/build" ] && [ "$build" = "$(cd "$root/build" && pwd)" ] ||
  fail "the build directory is $build; the guide's commands (./synclab) use $root/build"

# "$ " lines inside ```console ... ``` blocks, in order.
mapfile -t commands < <(awk '
  /^```console[[:space:]]*$/ { inside = 1; next }
  /^```/ { inside = 0; next }
  inside && /^\$ / { print substr($0, 3) }' "$guide")
[ ${#commands[@]} -gt 0 ] || fail "$guide shows no command (no \"\$ \" line in a \`\`\`console block)"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The compiler cache stays the user's (ccache finds it through HOME otherwise).
if [ -z "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null 2>&1; then
  CCACHE_DIR="$(ccache -k cache_dir 2>/dev/null)" && [ -n "$CCACHE_DIR" ] && export CCACHE_DIR
fi
export HOME="$scratch"
unset DISPLAY WAYLAND_DISPLAY
cd "$root" || fail "cannot enter $root"

start=$SECONDS
n=0
for cmd in "${commands[@]}"; do
  n=$((n + 1))
  t0=$SECONDS
  out="$(bash -c "$cmd" 2>&1 </dev/null)"
  rc=$?
  if [ $rc -ne 0 ]; then
    printf '%s\n' "$out" | tail -n 80
    fail "command $n of ${#commands[@]} exited with status $rc: \$ $cmd"
  fi
  echo "ok ($((SECONDS - t0))s): \$ $cmd"
done
# The guide says the reference solution gets every point of the lab's tasks, hidden cases included
# (the find-the-bug cases need the student's own findbug.txt and findbug.cu): a grading exits 0
# whatever the score, so look at the results it wrote.
results="$scratch/course/reference-01.json"
[ -f "$results" ] || fail "the guide's grading example wrote no ~/course/reference-01.json"
{
  python3 - "$results" <<'PY' || fail "the reference solution failed a case of the lab's tasks: $(cat "$results")"
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
assert any(t["status"] == "passed" for t in tests)
assert all(t["status"] == "passed" for t in tests if "findbug" not in t["tags"])
assert any("hidden" in t["tags"] for t in tests)
PY
  echo "ok: the reference solution passed every case of the lab's tasks ($results)"
}
echo "ok: the guide's ${#commands[@]} commands ran, in $((SECONDS - start))s"
