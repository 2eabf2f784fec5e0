#!/usr/bin/env bash
# Regenerates the visualizer's screenshots in docs/images/ with its offscreen export (no display
# needed). Records the traces first, with the simulator:
#   - the flagship: demo/naive_intra_warp_lock.cu under lockstep (it deadlocks);
#   - a 32x32 wavefront (tests/viz/app/programs/vizapp_wavefront.cu);
#   - 1024 contended lock bits (vizapp_locks.cu) and a barrier with a diverged warp (vizapp_barrier.cu);
#   - a lost update, ++x[0] in two blocks (vizapp_lost_update.cu), for the Reports window;
#   - a tree reduction in __shared__ memory (tests/viz/core/programs/viz_shared.cu), a shared region;
#   - lab 09's simd-deadlock scenario (labs/09-tiny-lock-wavefronts/scenarios.txt): a 32 x 32 lock table
#     in lecture mode, with its zoomed detail.
#
#   viz/app/make_screenshots.sh [BUILD_DIR]      (default: build; configured with the --gui packages)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)" || exit 1
out="$root/docs/images"
jobs="$(nproc 2>/dev/null || echo 2)"

[ -f "$build/build.ninja" ] || { echo "make_screenshots: $build is not a configured build directory" >&2; exit 1; }
echo "building the viewer and the programs in $build ..."
cmake --build "$build" -j "$jobs" --target synclab-viz naive_intra_warp_lock vizapp_prog_wavefront \
  vizapp_prog_locks vizapp_prog_barrier vizapp_prog_lost_update viz_prog_shared lab09 >/dev/null

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sim="$build/bin/sim"
echo "recording traces in $tmp ..."
# A program whose run has error reports exits 1 (the flagship's deadlock, the lost update's races,
# lab 09's deadlock): what matters is the trace, checked below.
SYNCLAB_MODEL=lockstep SYNCLAB_TRACE="$tmp/flagship.trace" "$sim/naive_intra_warp_lock" >/dev/null 2>&1 || true
SYNCLAB_TRACE="$tmp/wavefront.trace" "$sim/vizapp_prog_wavefront" 32 >/dev/null 2>&1 || true
SYNCLAB_TRACE="$tmp/locks.trace" "$sim/vizapp_prog_locks" >/dev/null 2>&1 || true
SYNCLAB_TRACE="$tmp/barrier.trace" "$sim/vizapp_prog_barrier" >/dev/null 2>&1 || true
SYNCLAB_TRACE="$tmp/lost_update.trace" "$sim/vizapp_prog_lost_update" >/dev/null 2>&1 || true
SYNCLAB_TRACE="$tmp/shared.trace" "$sim/viz_prog_shared" >/dev/null 2>&1 || true
"$sim/lab09" count --version naive --keys 32 --bins 2 --model lockstep --sched rr --show bad \
  --trace "$tmp/lab09.trace" >/dev/null 2>&1 || true
for t in flagship wavefront locks barrier lost_update shared lab09; do
  [ -s "$tmp/$t.trace" ] || { echo "make_screenshots: no trace from $t" >&2; exit 1; }
done

viz="$build/bin/synclab-viz"
mkdir -p "$out"
shot() {  # shot NAME TRACE ARGS...
  local name=$1 trace=$2
  shift 2
  # From the traces' directory, so the pictures show a short trace name; source paths relative to
  # the tree, so they do not depend on where the tree was checked out.
  (cd "$tmp" && "$viz" "$trace.trace" --export "$out/$name" --relative-to "$root" "$@" >/dev/null 2>"$tmp/viz.log") ||
    { cat "$tmp/viz.log" >&2; exit 1; }
  echo "  docs/images/$name"
}
echo "exporting:"
# The whole layout, at the flagship's deadlock report (where the viewer opens).
shot viz-layout.png flagship --size 1600x900
# One window each.
shot viz-lanes.png flagship --window lanes --size 900x200
shot viz-barrier-lanes.png barrier --window lanes --size 900x200 --step 30%
shot viz-locks.png locks --window locks --size 760x780 --step 55%
shot viz-locks-lecture.png lab09 --window locks --size 960x460 --step report:0 --lecture
shot viz-wavefront.png wavefront --window wavefront --size 760x500 --step 45%
shot viz-timeline.png locks --window timeline --size 1200x520 --step 55%
shot viz-source.png flagship --window source --size 900x380 --select 0:1
shot viz-reports.png lost_update --window reports --size 1000x420 --report 0
shot viz-shared.png shared --window locks --size 760x300 --block 1 --step 70%
shot viz-legend.png flagship --window legend --size 420x420
shot viz-help.png flagship --window help --size 760x720
# An animation of the wavefront, for slides.
shot viz-wavefront.gif wavefront --window wavefront --size 600x400 --from first --to last --fps 15 --max-frames 60
