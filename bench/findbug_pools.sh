#!/usr/bin/env bash
# bench/findbug_pools.sh: every find-the-bug program of every lab, built and explored
# (tests/labs/findbug/check_pool.sh without --sample; docs/findbug.md). CTest's
# labs.NN-topic.findbug_pool builds one program per lab to keep CI within its budget; this runs
# all fifty, each as handed out (all 32 runs, counted) and with its reference fix.
#
#   bench/findbug_pools.sh [--labs "01 02 ..."] [--out FILE]
#
# Writes the per-program lines, the date, the commit and the machine to FILE (default
# build/bench-findbug-pools.txt); exits 1 if any program is not caught or any fix fails.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
labs="01 02 03 04 05 06 07 08 09 10"
out=$here/build/bench-findbug-pools.txt
while [ $# -gt 0 ]; do
  case $1 in
    --labs) labs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "findbug_pools.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
cd "$here"
echo "findbug_pools.sh: bringing build/ up to date ..."
cmake --build build >/dev/null || exit 2
fail=0
{
  echo "# bench/findbug_pools.sh $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "# $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), simulator"
} > "$out"
for nn in $labs; do
  start=$(date +%s)
  echo "lab $nn ..."
  tests/labs/findbug/check_pool.sh --lab "$nn" --bin build/bin --work "build/findbug-pools/$nn" | tee -a "$out" ||
    fail=1
  echo "# lab $nn: $(($(date +%s) - start)) s" | tee -a "$out"
done
echo "findbug_pools.sh: wrote $out"
exit $fail
