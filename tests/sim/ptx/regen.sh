#!/bin/sh
# Regenerates the sample PTX used by tests/sim/ptx_parser.test.cpp from src/ (needs nvcc).
# The tests assert facts read off these files by hand: after regenerating, re-check them.
set -e
cd "$(dirname "$0")/src"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
gen() { out=$1; shift; "$NVCC" -ptx "$@" -o "../$out"; }
gen lock_sm75.ptx            -lineinfo -arch=compute_75 lock.cu
gen misc_sm80.ptx            -lineinfo -arch=compute_80 misc.cu
gen misc_sm80_rdc.ptx        -lineinfo -arch=compute_80 -rdc=true misc.cu
gen coop_sm80.ptx            -lineinfo -arch=compute_80 coop.cu
gen coop_sm80_G.ptx          -G -arch=compute_80 coop.cu
gen cub_sm75.ptx             -lineinfo -arch=compute_75 cubk.cu
gen rest_sm80.ptx            -lineinfo -arch=compute_80 rest.cu
gen rest_sm80_G.ptx          -G -arch=compute_80 rest.cu
gen switch_sm75.ptx          -lineinfo -arch=compute_75 sw.cu
gen sync_sm90.ptx            -lineinfo -arch=compute_90 sync.cu
gen thrust_sm80.ptx          -lineinfo -arch=compute_80 thrust.cu
gen unsupported_sm80.ptx     -lineinfo -arch=compute_80 unsupported.cu
