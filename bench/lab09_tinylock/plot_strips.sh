#!/usr/bin/env bash
# Draws the strips table that `lab09_tinylock --nw-strips N...` prints as a PNG with gnuplot
# (scripts/bootstrap --plots installs gnuplot-nox):
#
#   bench/lab09_tinylock/plot_strips.sh RUN.txt OUT.png
#
# Milliseconds per Needleman-Wunsch fill against n (n x n cells), log scale on both axes, one line
# per version of the table, and the goal for 16384 x 16384 (2 ms) as a cross.
set -euo pipefail
run="${1:?usage: plot_strips.sh RUN.txt OUT.png}"
out="${2:?usage: plot_strips.sh RUN.txt OUT.png}"
command -v gnuplot >/dev/null || { echo "plot_strips.sh: gnuplot not found (scripts/bootstrap --plots)" >&2; exit 3; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The table after "Needleman-Wunsch by warps owning strips": its header names the columns.
awk -F'|' '/^Needleman-Wunsch by warps owning strips/ { table = 1; next }
           table && /^\| cells/ { n = NF; for (i = 3; i < NF; ++i) { h = $i; gsub(/^ +| +$/, "", h); gsub(/ /, "_", h); printf "\"%s\" ", h }
                                  printf "\n"; next }
           table && /^\| [0-9]/ { split($2, c, " "); printf "%s ", c[1]; for (i = 3; i < NF; ++i) { v = $i; gsub(/ /, "", v); if (v == "-" || v ~ /WRONG/) v = "NaN"; printf "%s ", v }
                                  printf "\n" }
           table && /^$/ && seen { exit }
           table && /^\|/ { seen = 1 }' "$run" >"$tmp/fill.dat"
[ "$(wc -l <"$tmp/fill.dat")" -ge 2 ] || { echo "plot_strips.sh: no strips table in $run" >&2; exit 1; }
cols=$(head -1 "$tmp/fill.dat" | wc -w)
gnuplot <<GP
set terminal pngcairo size 1000,700 font ",11" noenhanced
set output "$out"
set title "Needleman-Wunsch on an NVIDIA H200: milliseconds per fill (median of 7)"
set xlabel "n (an n x n score matrix)"
set ylabel "milliseconds per fill"
set logscale xy 2
set xrange [768:22000]
set grid
set key top left
plot for [c=1:$cols] "$tmp/fill.dat" skip 1 using 1:(column(c + 1)) with linespoints lw 2 \
       title system(sprintf("head -1 $tmp/fill.dat | awk '{ print \$%d }' | tr '_\"' ' '", c)), \
     "-" using 1:2 with points pt 2 ps 3 lw 2 lc rgb "black" title "goal: 16384 x 16384 in 2 ms"
16384 2
e
GP
echo "$out"
