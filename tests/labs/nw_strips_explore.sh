#!/usr/bin/env bash
# The strips' hand-over (bench/lab09_tinylock/nw_strips.cuh) explored on the simulator: every
# strips version of the benchmark on 256 x 256 cells (the h100 profile, whose shared memory holds
# every ring; a strip of 128 columns hands its east column to the next one cell at a time), under
# both warp models and both memory models, round-robin and random schedules, the race checker on.
# Each run checks every fill against the host's; any WRONG, race report or failure fails the test.
# Then strips-dataflow-block with K = 2 alone on 512 x 512 (two blocks), four runs.
#
#   tests/labs/nw_strips_explore.sh LAB09_TINYLOCK_SIM_EXE
set -u
exe="${1:?usage: nw_strips_explore.sh LAB09_TINYLOCK_SIM_EXE}"
fails=0 runs=0
# explore MODEL MEMORY SCHED SEED N [WAYS]: one run of the table on N x N cells (WAYS: only the
# versions whose name holds it); a failure is counted and its output shown.
explore() {
  local model=$1 memory=$2 sched=$3 seed=$4 n=$5 ways=${6:-}
  local out rc row
  out="$(SYNCLAB_DEVICE=h100 SYNCLAB_MODEL=$model SYNCLAB_MEMORY=$memory SYNCLAB_SCHED=$sched SYNCLAB_SEED=$seed \
    SYNCLAB_QUIET=1 "$exe" --smoke --nw-strips "$n" ${ways:+--nw-strips-ways "$ways"} 2>&1)"
  rc=$?
  runs=$((runs + 1))
  row="$(printf '%s\n' "$out" | grep "^| $n x $n" || true)"
  if [ $rc -ne 0 ] || [ -z "$row" ] || printf '%s\n' "$out" | grep -q 'WRONG\|SyncLab ERROR'; then
    echo "FAILED: SYNCLAB_MODEL=$model SYNCLAB_MEMORY=$memory SYNCLAB_SCHED=$sched SYNCLAB_SEED=$seed (exit $rc)"
    printf '%s\n' "$out" | tail -20
    fails=$((fails + 1))
  else
    echo "ok: $model $memory $sched $seed: $row"
  fi
}
for model in its lockstep; do
  for memory in sc relaxed; do
    for sched in "rr 0" "random 1" "random 2"; do
      explore $model $memory $sched 256
    done
  done
done
# strips-dataflow-block on 512 x 512 cells: with K = 2, two blocks, so a hand-over between blocks
# (global memory, a chunk of 32 rows at a time or, "rows", the rows of each step) as well as inside
# each (shared memory, whose ring of 256 rows then goes round twice).
for model in its lockstep; do
  for memory in sc relaxed; do
    explore $model $memory random 3 512 "dataflow-block R=4 Q=2 K=2"
  done
done
echo "$runs runs, $fails failed"
[ $fails -eq 0 ]
