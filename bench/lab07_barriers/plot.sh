#!/usr/bin/env bash
# Draws the time-per-round table that lab07_barriers prints as a PNG with gnuplot
# (scripts/bootstrap --plots installs gnuplot-nox):
#
#   bench/lab07_barriers/plot.sh RUN.txt OUT.png
#
# One line per method, time per barrier round (us) against blocks, log scale on both axes, and the
# paper's GTX 280 values at 30 blocks as crosses (seed 001, section V.C and the abstract: 10,000
# rounds took about 60 ms with CPU implicit synchronization, lock-free was 4.0x faster than that
# and 8.4x faster than CPU explicit; values derived from the text, not read off Figure 8).
set -euo pipefail
run="${1:?usage: plot.sh RUN.txt OUT.png}"
out="${2:?usage: plot.sh RUN.txt OUT.png}"
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found (scripts/bootstrap --plots)" >&2; exit 3; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The first table of the run: "| blocks | explicit | ... |" rows with numbers.
awk -F'|' '/^\| blocks/ { if (seen) exit; seen = 1; n = NF; for (i = 2; i < NF; ++i) { gsub(/ /, "", $i); h[i] = $i }
             for (i = 2; i < NF - 1; ++i) printf "%s ", h[i]; printf "\n"; next }
           seen && /^\| [0-9]/ { for (i = 2; i < NF - 1; ++i) { v = $i; gsub(/ /, "", v); if (v == "-") v = "NaN"; printf "%s ", v }
                                 printf "\n" }
           seen && !/^\|/ { exit }' "$run" >"$tmp/rounds.dat"
head -1 "$tmp/rounds.dat" | grep -q explicit || { echo "plot.sh: no time-per-round table in $run" >&2; exit 1; }
title="$(head -1 "$run" | sed -E 's/^lab07_barriers: ([^,]*), ([0-9-]*).*; ([0-9]+) threads per block.*/\1, \2, \3 threads per block/')"
cat >"$tmp/paper.dat" <<'DAT'
# blocks us_per_round method (GTX 280, derived from seed 001's text)
30 12.6 explicit
30 6.0 implicit
30 1.5 lock-free
DAT
cols=$(head -1 "$tmp/rounds.dat" | wc -w)
gnuplot <<GP
set terminal pngcairo size 900,700 font ",11" noenhanced
set output "$out"
set title "Time per global barrier round\n$title"
set xlabel "blocks (one launch; up to the co-resident maximum)"
set ylabel "microseconds per round (median)"
set logscale xy
set xrange [0.8:400]
set yrange [0.5:30]
set grid
set key outside bottom center horizontal maxrows 3
plot for [c=2:$cols] "$tmp/rounds.dat" using 1:c with linespoints lw 2 title columnhead(c), \
     "$tmp/paper.dat" using 1:2 with points pt 2 ps 2 lc rgb "black" title "GTX 280, paper (explicit, implicit, lock-free)", \
     "$tmp/paper.dat" using 1:2:3 with labels offset 5,0 notitle
GP
echo "$out"
