#include <cstdio>
__device__ __noinline__ int rec(int n) { if (n <= 1) return 1; int r = n * rec(n - 1); printf("%d\n", r); return r; }
__global__ void krec2(int* o) { o[threadIdx.x] = rec(o[threadIdx.x]); }
__global__ void kred(int* o, unsigned* u) {
  int v = __reduce_add_sync(0xffffffff, o[threadIdx.x]);
  unsigned m = __reduce_min_sync(0xffffffff, u[threadIdx.x]);
  unsigned a = __reduce_and_sync(0xffffffff, u[threadIdx.x]);
  atomicAdd(o + 100, 1);
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;" :: "l"(u));
  asm volatile("fence.proxy.alias;");
  asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(a) : "l"(u));
  asm volatile("{ .reg .pred p; setp.eq.u32 p, %0, 0; @p bra DONE; add.u32 %0, %0, 1; DONE: }" : "+r"(a));
  asm volatile("{ .reg .pred p; setp.eq.u32 p, %0, 0; @p bra DONE; add.u32 %0, %0, 2; DONE: }" : "+r"(a));
  unsigned r; asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(v), "r"(m), "r"(a));
  asm("bfe.u32 %0, %0, 3, 5;" : "+r"(r));
  asm("bfi.b32 %0, %0, %1, 3, 5;" : "+r"(r) : "r"(v));
  asm("dp4a.u32.u32 %0, %0, %1, %1;" : "+r"(r) : "r"(v));
  asm("fns.b32 %0, %0, 0, 1;" : "+r"(r));
  { int tp; asm("{ .reg .pred p; testp.finite.f32 p, %1; selp.s32 %0, 1, 0, p; }" : "=r"(tp) : "f"(1.0f)); r += tp; }
  o[threadIdx.x] = v + m + a + r;
}
