#include <cstdio>
#include <cassert>
#include <cuda_fp16.h>
#include <cuda/atomic>

__constant__ int ctab[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__constant__ float cf[3] = {1.5f, -2.0f, 3.25f};
__constant__ double cd[2] = {0.1, -1e300};
__device__ int ga, gb;
__device__ int* ptrs[3] = {&ga, &gb, &ga};
__device__ int garr[4][5];
__device__ char* strp = nullptr;

__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ __noinline__ void fill(int* p, int a, double b, float c) { p[0] = a + (int)b + (int)c; }

__global__ void kprintf(int x, double d) {
  printf("hello %d %f thread %d\n", x, d, threadIdx.x);
  assert(x != 3);
  if (x > 100) __trap();
}

__global__ void krec(int* out, int n) { out[threadIdx.x] = fact(n + threadIdx.x); fill(out + 64, n, 2.0, 3.0f); }

__global__ void katom(int* i, unsigned* u, unsigned long long* ull, float* f, double* d, long long* ll, __half2* h2) {
  atomicAdd(i, 1); atomicSub(i, 2); atomicMin(i, 3); atomicMax(i, 4); atomicAnd(i, 5); atomicOr(i, 6); atomicXor(i, 7);
  atomicExch(i, 8); atomicCAS(i, 1, 2);
  atomicInc(u, 10); atomicDec(u, 10); atomicMin(u, 3u); atomicMax(u, 3u);
  atomicAdd(ull, 1ull); atomicCAS(ull, 5ull, 6ull); atomicExch(ull, 7ull); atomicMin(ull, 1ull); atomicMax(ll, 2ll);
  atomicAnd(ull, 3ull);
  atomicAdd(f, 1.0f); atomicExch(f, 2.0f);
  atomicAdd(d, 1.0);
  atomicAdd(h2, __halves2half2(__float2half(1.0f), __float2half(2.0f)));
  unsigned old = atomicAdd(u, 1);
  u[1] = old;
  atomicAdd_block(i + 1, 1); atomicAdd_system(i + 2, 1);
}

__global__ void katomref(int* p, unsigned* flag) {
  cuda::atomic_ref<int, cuda::thread_scope_device> r(*p);
  r.fetch_add(1, cuda::memory_order_relaxed);
  r.store(5, cuda::memory_order_release);
  int v = r.load(cuda::memory_order_acquire);
  int e = 0;
  r.compare_exchange_strong(e, v, cuda::memory_order_acq_rel);
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> s(*flag);
  s.store(1, cuda::memory_order_seq_cst);
  cuda::atomic_ref<unsigned, cuda::thread_scope_block> b(*flag);
  b.fetch_or(2, cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
  __threadfence(); __threadfence_block(); __threadfence_system();
}

__global__ void kwarp(int* out, float* fo) {
  int lane = threadIdx.x & 31;
  int v = out[threadIdx.x];
  v += __shfl_sync(0xffffffff, v, 0);
  v += __shfl_up_sync(0xffffffff, v, 1);
  v += __shfl_down_sync(0xffffffff, v, 2, 16);
  v += __shfl_xor_sync(0xffffffff, v, 4);
  float f = fo[threadIdx.x];
  f += __shfl_down_sync(0xffffffff, f, 1);
  double dd = f;
  dd += __shfl_xor_sync(0xffffffff, dd, 1);
  unsigned b = __ballot_sync(0xffffffff, v > 3);
  int a = __all_sync(0xffffffff, v > 0) + __any_sync(0xffffffff, v > 1) + __uni_sync(0xffffffff, v);
  unsigned m = __match_any_sync(0xffffffff, v);
  int pred; unsigned m2 = __match_all_sync(0xffffffff, v, &pred);
  unsigned am = __activemask();
  __syncwarp();
  __syncwarp(0x0000ffff);
  out[threadIdx.x] = v + b + a + m + m2 + pred + am + lane + (int)dd + __popc(v) + __clz(v) + __brev(v) + __ffs(v) + __byte_perm(v, b, 0x3210) + __funnelshift_l(v, b, 3) + __mul24(v, b) + __umulhi(v, b) + __sad(v,b,3);
  fo[threadIdx.x] = __fdividef(f, 3.0f) + __sinf(f) + __cosf(f) + __expf(f) + __logf(f) + sqrtf(f) + rsqrtf(f) + 1.0f/f + tanhf(f) + fabsf(f) + fminf(f, 2.f) + copysignf(f, -1.f) + (isnan(f)?1.f:0.f) + __saturatef(f) + fmaf(f, f, 1.f);
}

__global__ void ktime(unsigned long long* t) {
  long long c = clock64();
  unsigned c32 = clock();
  __nanosleep(100);
  unsigned long long g;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  unsigned sm; asm("mov.u32 %0, %%smid;" : "=r"(sm));
  unsigned lt; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  t[threadIdx.x] = c + c32 + g + sm + lt;
}

__global__ void kbar(int* x) {
  __shared__ int s[64];
  s[threadIdx.x] = x[threadIdx.x];
  asm volatile("bar.sync 1, 64;");
  __syncthreads();
  int c = __syncthreads_count(s[threadIdx.x] > 0);
  int a = __syncthreads_and(s[threadIdx.x] > 1);
  int o = __syncthreads_or(s[threadIdx.x] > 2);
  asm volatile("bar.arrive 2, 64;");
  asm volatile("barrier.sync 3;");
  x[threadIdx.x] = c + a + o + s[63 - threadIdx.x];
}

extern __shared__ float dyn[];
__global__ void kdyn(float* out) {
  __shared__ double st[16];
  dyn[threadIdx.x] = threadIdx.x;
  st[threadIdx.x % 16] = 1.0;
  __syncthreads();
  out[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x] + st[0] + ctab[threadIdx.x % 8] + cf[1] + cd[0] + *ptrs[threadIdx.x % 3] + garr[1][threadIdx.x % 5];
}

__global__ void khalf(__half* h, __half2* h2, float* f) {
  __half a = h[threadIdx.x];
  __half b = __hadd(a, __float2half(1.0f));
  __half2 c = __hmul2(h2[0], h2[1]);
  f[threadIdx.x] = __half2float(b) + __low2float(c) + __high2float(c) + (__hlt(a, b) ? 1.f : 0.f);
  h[threadIdx.x] = __hfma(a, b, a);
}

__global__ void klocal(int* out, int k) {
  int arr[16];
  for (int i = 0; i < 16; ++i) arr[i] = out[i] * k;
  out[threadIdx.x] = arr[(threadIdx.x * k) % 16];
}

__global__ void kconv(float* f, double* d, int* i, long long* l, unsigned char* c, short* s) {
  int t = threadIdx.x;
  f[t] = (float)d[t] + (float)i[t] + (float)l[t] + c[t] + s[t];
  d[t] = (double)f[t] + (double)l[t] / 3.0;
  i[t] = (int)f[t] + __float2int_rn(f[t]) + __double2int_rz(d[t]) + (int)(l[t] >> 3) + (int)(l[t] / 7) + i[t] % 5 + (unsigned)i[t] / 9u;
  l[t] = (long long)d[t] * l[t] + ((long long)i[t] * 77);
  c[t] = (unsigned char)(f[t] > 2.0f);
  s[t] = (short)(d[t] < 1.0 || f[t] != f[t]);
}
