__device__ int f1(int x) { return x * 3; }
__device__ int f2(int x) { return x + 7; }
typedef int (*fp)(int);
__device__ fp table[2] = {f1, f2};
__global__ void ksw(int* out, int k) {
  int r;
  switch (k + threadIdx.x) {
    case 0: r = 5; break; case 1: r = out[3]; break; case 2: r = out[9] * 2; break;
    case 3: r = 11; break; case 4: r = out[1] + 4; break; case 5: r = 17; break;
    case 6: r = out[2] - 1; break; case 7: r = out[5] ^ 3; break; default: r = 0;
  }
  out[threadIdx.x] = r + table[k & 1](r);
  if (r == 99) { asm volatile("exit;"); }
  if (r == 98) { while (true) { out[0] = 1; } }
}
