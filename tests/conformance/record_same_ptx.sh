#!/usr/bin/env bash
# Rewrites tests/conformance/same_ptx_sm90.verified: runs every conformance.*.sm90_same_ptx check
# of the build folder (default build/) with SYNCLAB_SM90_RECHECK=1, so that each compiles its
# program for sm_90 and compares the PTX, and keeps the key of every program found equal. Run it
# after changing a conformance program, a header it includes, synclab-nvcc or the toolkit, and
# commit the list; until then the checks compile (and still pass or fail rightly).
#
#   tests/conformance/record_same_ptx.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-$here/../../build}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
SYNCLAB_SM90_RECHECK=1 ctest --test-dir "$build" -R '^conformance\..*\.sm90_same_ptx$' -j "$(nproc)" -V >"$log" 2>&1 || {
  grep -E "FAIL|Failed" "$log" | head -20
  echo "record_same_ptx.sh: some checks failed; the list is left as it was" >&2
  exit 1
}
{
  echo "# conformance programs whose sm_90 PTX equals their base build's, each with the SHA-256 of"
  echo "# the inputs of that PTX (same_ptx_sm90.py); written by record_same_ptx.sh, not by hand"
  grep -o "verified: .*" "$log" | sed 's/^verified: //' | sort
} >"$here/same_ptx_sm90.verified"
echo "record_same_ptx.sh: $(grep -vc '^#' "$here/same_ptx_sm90.verified") programs recorded in $here/same_ptx_sm90.verified"
