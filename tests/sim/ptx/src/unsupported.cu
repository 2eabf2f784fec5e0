// Uses SIMD video instructions (vabsdiff4), which the simulator does not implement.
__global__ void simd(unsigned* o) {
  unsigned a = o[threadIdx.x];
  o[threadIdx.x] = __vabsdiffu4(a, 0x01020304u);
  o[threadIdx.x + 1] = __vabsdiffu4(a, 7u);
}
