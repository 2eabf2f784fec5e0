#!/usr/bin/env bash
# CTest common.interleaving.host_handover: `synclab-trace interleaving` on real simulator traces of
# a race with the host (tests/checks/host_handover.cu, whose mailbox is a named region, so that the
# trace records the host's writes to it). The report's two accesses are marked: the device's load
# and the host's store (listed as "the host"); where the report names the host's line (the host's
# flag raised through a device-scope atomic_ref: -DHOST_ASKED_DEVICE), the host's store shows it.
#
#   interleaving_host.sh SYNCLAB_TRACE_TOOL PROGRAM PROGRAM_HOST_ASKED_DEVICE
set -uo pipefail
tool=$1 base=$2 host_scope=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "interleaving_host.sh: FAILED: $*"; exit 1; }

show() {  # show NAME PROGRAM: runs it with a trace, prints the interleaving of its first race report
  SYNCLAB_TRACE="$tmp/$1.trace" "$2" >"$tmp/$1.run" 2>&1
  grep -q "SyncLab ERROR (race).*with the host" "$tmp/$1.run" || { cat "$tmp/$1.run"; fail "$1: no race with the host"; }
  "$tool" interleaving "$tmp/$1.trace" >"$tmp/$1.txt" 2>&1 || { cat "$tmp/$1.txt"; fail "$1: synclab-trace interleaving"; }
  cat "$tmp/$1.txt"
}

show base "$base"
grep -q '^>> .* the host  *host store ' "$tmp/base.txt" || fail "base: the host's store is not one of the two marked accesses"
grep -q '^>> .* block 0 thread 0 (warp 0 lane 0) .*host_handover.cu:[0-9]' "$tmp/base.txt" ||
  fail "base: the device's access is not marked"
[ "$(grep -c '^>>' "$tmp/base.txt")" = 2 ] || fail "base: not exactly two marked accesses"
grep -q 'region "mailbox"' "$tmp/base.txt" || fail "base: the location is not named as the region"
! grep -q "not in the trace" "$tmp/base.txt" || fail "base: a note says the host's access is missing"
echo "ok: the host's store and the device's load are the two marked accesses"

show host_scope "$host_scope"
grep -q '^>> .* the host  *host store .*host_handover.cu:[0-9]' "$tmp/host_scope.txt" ||
  fail "HOST_ASKED_DEVICE: the host's store does not show the host's line the report names"
echo "ok: the host's store shows the line of the host's code the report names"
