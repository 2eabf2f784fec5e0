#!/usr/bin/env bash
# CTest slides.figures: every scenario of labs/*/scenarios.txt is recorded with the reference
# solutions and exported with its own synclab-viz options (scripts/build-slides --figures-only,
# the same step the decks use). Fails when a scenario records no trace, when its options are
# refused (a region name the harness no longer has), when the moment they ask for never comes
# (synclab-viz then falls back and says so), or when a figure (or a "gif:" line's animation) is
# missing.
#
#   check_figures.sh ROOT BUILD OUT
set -uo pipefail

[ $# -eq 3 ] || { echo "usage: check_figures.sh ROOT BUILD OUT" >&2; exit 2; }
root="$1" build="$2" out="$3"
rm -rf "$out/figures" "$out/traces"
log="$out/build-slides.log"
mkdir -p "$out"
"$root/scripts/build-slides" --build "$build" --out "$out" --figures-only >"$log" 2>&1
rc=$?
cat "$log"
[ $rc -eq 0 ] || { echo "FAIL: scripts/build-slides --figures-only failed (exit $rc)"; exit 1; }

failures=0
expected=0
for file in "$root"/labs/[0-9][0-9]-*/scenarios.txt; do
  nn="$(basename "$(dirname "$file")" | cut -c1-2)"
  compgen -G "$root/slides/$nn-*.md" >/dev/null || continue  # figures are made for labs with a deck
  while IFS='|' read -r n _; do
    name="$(xargs <<<"$n")"
    [ -n "$name" ] || continue
    expected=$((expected + 1))
    if [ ! -s "$out/figures/$nn-$name.png" ]; then
      echo "FAIL: no figure $nn-$name.png"
      failures=$((failures + 1))
    fi
  done < <(grep -vE '^[[:space:]]*(#|$|program:|gif:)' "$file")
  # "gif: NAME | options": an animation beside NAME's figure.
  while IFS='|' read -r n _; do
    name="$(xargs <<<"$n")"
    expected=$((expected + 1))
    if [ ! -s "$out/figures/$nn-$name.gif" ] || [ "$(head -c 4 "$out/figures/$nn-$name.gif")" != GIF8 ]; then
      echo "FAIL: no animation $nn-$name.gif"
      failures=$((failures + 1))
    fi
  done < <(sed -n 's/^[[:space:]]*gif:[[:space:]]*//p' "$file")
done
[ $expected -gt 0 ] || { echo "FAIL: no scenarios found under $root/labs"; exit 1; }
if grep -q '^slides: [0-9][0-9]-.*: synclab-viz: ' "$log"; then
  echo "FAIL: synclab-viz could not show the moment a scenario asks for:"
  grep '^slides: [0-9][0-9]-.*: synclab-viz: ' "$log"
  failures=$((failures + 1))
fi
echo "$expected figures, $failures failure(s)"
[ $failures -eq 0 ]
