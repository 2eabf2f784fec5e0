#!/usr/bin/env bash
# CTest slides.decks: builds every deck of slides/ (scripts/build-slides: npm ci when needed, the
# labs' scenarios recorded and exported as figures, Marp to HTML) into OUT, then opens the HTML in
# headless Debian chromium and checks screenshots (slides_screenshot_check): each deck's title
# slide, and every slide that shows a figure. Before trusting the checks it makes sure they fail
# on a blank page and on a browser error page (a missing deck). One browser takes every
# screenshot (screenshots.js, with the puppeteer-core that Marp brings along): a browser started
# per slide took most of this test's time. With FIGURES (the output folder of the test
# slides.figures, which ran scripts/build-slides --figures-only with the same build), the decks
# show those figures (build-slides --figures-from) instead of every scenario being recorded and
# exported a second time.
#
#   check_decks.sh ROOT BUILD OUT CHECKER [FIGURES]
set -uo pipefail

[ $# -eq 4 ] || [ $# -eq 5 ] || { echo "usage: check_decks.sh ROOT BUILD OUT CHECKER [FIGURES]" >&2; exit 2; }
root="$1" build="$2" out="$3" checker="$4" figures="${5:-}"
shots="$out/screenshots"
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() { echo "FAIL: $*"; exit 1; }

chromium="${SYNCLAB_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
[ -n "$chromium" ] || die "chromium is not installed (Debian package chromium: scripts/bootstrap --slides)"
[ -x "$checker" ] || die "the checker $checker was not built"

# ---- 1. the decks ---------------------------------------------------------------------------------
rm -rf "$out/figures" "$out"/*.html "$shots"
mkdir -p "$shots"
reuse=()
[ -z "$figures" ] || reuse=(--figures-from "$figures")
echo "== scripts/build-slides --build $build --out $out ${reuse[*]}"
"$root/scripts/build-slides" --build "$build" --out "$out" "${reuse[@]}" || die "building the decks failed (messages above)"

bg="$(sed -nE 's/.*--synclab-title-bg:[[:space:]]*#([0-9a-fA-F]{6}).*/\1/p' "$root/slides/themes/synclab.css" | head -n 1)"
[ -n "$bg" ] || die "slides/themes/synclab.css defines no --synclab-title-bg: #RRGGBB"

# Slide numbers (1-based, as Marp's #N) of the slides of HTML that show a figure, with the figure.
# Animations (.gif) are left out: a screenshot catches whichever frame is on screen.
figure_slides() {
  grep -oE '<section id="[0-9]+"|src="figures/[^"]+\.png"' "$1" |
    awk -F'"' '/^<section/ { s = $2 } /^src=/ { if (!(s in seen)) { seen[s] = 1; print s, $2 } }'
}

# Every screenshot this test looks at, taken by one browser: the self-check's pages, then each
# deck's title slide and figure slides (a 1280x720 window showing one Marp slide).
blank="$out/blank.html"
printf '<!DOCTYPE html>\n<html><head><title>blank</title></head><body></body></html>\n' >"$blank"
# A figure slide whose caption runs into the page bar: the caption check must see it.
low="$out/low-caption.html"
cat >"$low" <<'HTML'
<!DOCTYPE html>
<html><head><title>low caption</title></head>
<body style="margin:0"><section class="figure" style="position:relative;width:1280px;height:720px">
<h2>A figure</h2><p style="position:absolute;top:690px">a caption in the page bar</p>
<footer style="position:absolute;top:680px;height:30px">footer</footer></section></body></html>
HTML
{
  echo "file://$blank $shots/blank.png"
  echo "file://$low $shots/low-caption.png"
  echo "file://$out/no-such-deck.html#1 $shots/missing.png"
  for md in "$root"/slides/[0-9][0-9]-*.md; do
    base="$(basename "$md" .md)"
    [ -s "$out/$base.html" ] || continue
    echo "file://$out/$base.html#1 $shots/$base-1.png"
    figure_slides "$out/$base.html" | while read -r n fig; do echo "file://$out/$base.html#$n $shots/$base-$n.png"; done
  done
} >"$out/screenshots.txt"
echo "== $(wc -l <"$out/screenshots.txt") screenshots in one chromium (tests/slides/screenshots.js)"
timeout 600 node "$root/tests/slides/screenshots.js" "$chromium" "$out/screenshots.txt" 2>"$out/screenshots.log"
[ $? -le 1 ] || { cat "$out/screenshots.log"; die "the browser for the screenshots did not run (above)"; }

# screenshot URL PNG: the page's screenshot was taken (its reason, if not).
screenshot() {
  [ -s "$2" ] && return 0
  grep -F "no page: $1:" "$out/screenshots.log" || echo "    no screenshot of $1"
  return 1
}

# check MODE SHOT ARG LABEL: runs the checker, prints its lines indented; status 0 when ok.
check() {
  local result rc
  result="$("$checker" "$1" "$2" "$3" 2>&1)"
  rc=$?
  sed 's/^/    /' <<<"$result"
  return $rc
}

# ---- 2. the checks must be able to fail --------------------------------------------------------------
echo "== self-check: a blank page and a missing deck must fail"
any_figure="$(ls "$out"/figures/*.png 2>/dev/null | head -n 1)"
[ -n "$any_figure" ] || die "scripts/build-slides made no figures in $out/figures"
if screenshot "file://$blank" "$shots/blank.png"; then
  check title "$shots/blank.png" "$bg" && fail "the title check accepted a blank page"
  check figure "$shots/blank.png" "$any_figure" && fail "the figure check accepted a blank page"
else
  fail "chromium could not take a screenshot of $blank (log above)"
fi
grep -q "^caption: file://$low: clash: " "$out/screenshots.log" ||
  fail "the caption check did not see a caption in the page bar (file://$low)"
# A missing file: chromium takes no screenshot (the deck checks then fail), or one of an error
# page, which both checks must reject.
if screenshot "file://$out/no-such-deck.html#1" "$shots/missing.png" >/dev/null; then
  check title "$shots/missing.png" "$bg" && fail "the title check accepted chromium's error page for a missing file"
  check figure "$shots/missing.png" "$any_figure" && fail "the figure check accepted chromium's error page for a missing file"
else
  echo "    no screenshot of a missing file (a missing deck fails)"
fi

# ---- 3. every deck -------------------------------------------------------------------------------------
decks=0
for md in "$root"/slides/[0-9][0-9]-*.md; do
  [ -f "$md" ] || continue
  base="$(basename "$md" .md)"
  html="$out/$base.html"
  decks=$((decks + 1))
  echo "== $base"
  if [ ! -s "$html" ]; then
    fail "$html was not built"
    continue
  fi
  nslides="$(grep -o '<section id="[0-9]*"' "$html" | wc -l)"
  if [ "$nslides" -lt 2 ]; then
    fail "$html has $nslides slides"
    continue
  fi
  figure_slides="$(figure_slides "$html")"
  if [ -z "$figure_slides" ]; then
    fail "$base shows no figure (no <img src=\"figures/...\"> in $html)"
  fi

  echo "  slide 1 (title)"
  if screenshot "file://$html#1" "$shots/$base-1.png"; then
    check title "$shots/$base-1.png" "$bg" || fail "$base: the title slide (screenshot $shots/$base-1.png)"
  else
    fail "$base: chromium took no screenshot of slide 1"
  fi
  while read -r n fig; do
    [ -n "$n" ] || continue
    echo "  slide $n ($fig)"
    if [ ! -s "$out/$fig" ]; then
      fail "$base: slide $n shows $fig, which is missing"
      continue
    fi
    if screenshot "file://$html#$n" "$shots/$base-$n.png"; then
      check figure "$shots/$base-$n.png" "$out/$fig" || fail "$base: slide $n does not show $fig (screenshot $shots/$base-$n.png)"
      clash="$(grep -F "caption: file://$html#$n: clash: " "$out/screenshots.log")"
      [ -z "$clash" ] || fail "$base: slide $n: ${clash#*clash: }"
    else
      fail "$base: chromium took no screenshot of slide $n"
    fi
  done <<<"$figure_slides"
done
[ $decks -gt 0 ] || fail "no decks in $root/slides (slides/NN-topic.md)"

echo
if [ $failures -gt 0 ]; then
  echo "slides.decks: $failures check(s) failed; screenshots in $shots"
  exit 1
fi
echo "slides.decks: $decks decks render; title and figure slides checked (screenshots in $shots)"
