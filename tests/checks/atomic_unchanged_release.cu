// atomic_unchanged_release (clean): a read-modify-write that leaves the value as it was is still
// a write. Thread 0 of block 0 writes data, fences (__threadfence) and then does an atomic on the
// flag that does not change it (the flag is 0): atomicAdd(flag, 0), atomicExch(flag, 0),
// atomicMax(flag, 0) or a successful atomicCAS(flag, 0, 0). The fence and that atomic write form
// a release. After __syncthreads(), thread 32 (another warp) increments the flag with a plain
// (relaxed) atomicAdd, which has no release of its own but continues the release sequence
// headed by thread 0's atomic. Block 1 waits for the flag to be 1 and fences: it reads a value
// of that release sequence, so it synchronizes with thread 0 and may read the data. No race.
// (The twin, atomic_failed_cas_no_release.cu, uses a compare-and-swap that fails: a pure read,
// so there is no release and the data read races.)
#include "checks.h"

enum class Rmw { AddZero, ExchSame, MaxNotRaising, CasSame };

template <Rmw kind>
__device__ void unchanged(int* flag) {
  if (kind == Rmw::AddZero) atomicAdd(flag, 0);
  if (kind == Rmw::ExchSame) atomicExch(flag, 0);
  if (kind == Rmw::MaxNotRaising) atomicMax(flag, 0);
  if (kind == Rmw::CasSame) atomicCAS(flag, 0, 0);
}

template <Rmw kind>
__global__ void publish(int* data, int* flag, int* out) {
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    if (t == 0) {
      data[0] = 40 + static_cast<int>(kind);
      __threadfence();
      unchanged<kind>(flag);  // the flag stays 0
    }
    __syncthreads();  // thread 0's atomic comes first in the flag's modification order
    if (t == 32) atomicAdd(flag, 1);
  } else if (t == 0) {
    while (*reinterpret_cast<volatile int*>(flag) == 0) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

template <Rmw kind>
bool run(int* data, int* flag, int* out) {
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  publish<kind><<<2, 64>>>(data, flag, out);
  CHECK_KERNEL();
  int h = 0, f = 0;
  CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&f, flag, sizeof f, cudaMemcpyDeviceToHost));
  return h == 40 + static_cast<int>(kind) && f == 1;
}

int main() {
  int *data, *flag, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  bool ok = run<Rmw::AddZero>(data, flag, out);
  ok = run<Rmw::ExchSame>(data, flag, out) && ok;
  ok = run<Rmw::MaxNotRaising>(data, flag, out) && ok;
  ok = run<Rmw::CasSame>(data, flag, out) && ok;
  return verdict("atomic_unchanged_release", ok);
}
