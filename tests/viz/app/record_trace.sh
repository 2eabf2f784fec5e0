#!/bin/sh
# record_trace.sh OUT [VAR=VALUE ...] -- PROGRAM [ARGS...]
# Runs PROGRAM on the simulator with SYNCLAB_TRACE=OUT (and the given variables). The program's
# own exit status does not matter (the flagship deadlocks on purpose); the trace must exist and
# end cleanly (synclab-trace summary says "complete: yes" when TOOL is given via $SYNCLAB_TRACE_TOOL).
# When OUT is one of the program's arguments (a lab harness's --trace OUT), the program writes the
# trace itself and SYNCLAB_TRACE is not set.
set -u
out=$1; shift
rm -f "$out"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do export "$1"; shift; done
[ "${1:-}" = "--" ] && shift
own=0
for a in "$@"; do [ "$a" = "$out" ] && own=1; done
if [ $own = 1 ]; then
  "$@" >"$out.log" 2>&1
else
  SYNCLAB_TRACE="$out" "$@" >"$out.log" 2>&1
fi
status=$?
if [ ! -s "$out" ]; then
  echo "record_trace: $* (exit $status) wrote no trace to $out; its output:" >&2
  cat "$out.log" >&2
  exit 1
fi
if [ -n "${SYNCLAB_TRACE_TOOL:-}" ]; then
  "$SYNCLAB_TRACE_TOOL" summary "$out" >"$out.summary" 2>&1 || { cat "$out.summary" >&2; exit 1; }
  grep -q '^complete: yes' "$out.summary" || { echo "record_trace: $out is not complete" >&2; cat "$out.summary" >&2; exit 1; }
fi
echo "recorded $out (program exit $status)"
