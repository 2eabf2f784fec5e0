// Naive spin lock (the first buggy lock of the locks lab): one thread per warp wins the CAS.
__device__ unsigned lockw;

__global__ void naive(int* counter) {
  while (atomicCAS(&lockw, 0u, 1u) != 0) {
  }
  *counter += 1;
  atomicExch(&lockw, 0u);
}
