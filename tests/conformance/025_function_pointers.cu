// 025_function_pointers: device function pointers: a __device__ table of pointers with a static
// initializer indexed per thread (divergent indirect calls within a warp), a pointer selected at run
// time, a higher-order __noinline__ function, and a pointer copied to the host and passed back as a
// kernel argument.
#include "conformance.h"

constexpr int N = 256;
constexpr int K = 4;

typedef int (*binop)(int, int);

__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_sub(int a, int b) { return a - b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_xor(int a, int b) { return a ^ b; }

__device__ binop g_ops[4] = {op_add, op_sub, op_mul, op_xor};
__device__ binop g_exported = op_mul;

__device__ __noinline__ int fold(binop f, const int* v, int n, int init) {
    int acc = init;
    for (int k = 0; k < n; ++k) acc = f(acc, v[k]);
    return acc;
}

__global__ void indirect(const int* a, const int* b, binop from_host, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int x = a[i], y = b[i];
    int* o = out + i * K;
    o[0] = g_ops[i % 4](x, y);              // different lanes call different functions
    binop f = (x > y) ? op_sub : op_add;    // chosen at run time
    o[1] = f(x, y);
    int vals[3] = {x, y, i};
    o[2] = fold(g_ops[(i / 4) % 4], vals, 3, 1);
    o[3] = from_host(x, 3);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(25);
    static int ha[N], hb[N];
    for (int k = 0; k < N; ++k) {
        ha[k] = rng.next_int(-1000, 1000);
        hb[k] = rng.next_int(-1000, 1000);
    }
    binop hptr = nullptr;
    CHECK(cudaMemcpyFromSymbol(&hptr, g_exported, sizeof hptr));  // a device address, only used on the device
    int *da, *db, *dout;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    indirect<<<N / 64, 64>>>(da, db, hptr, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"table", "selected", "fold", "from-host"};
    auto apply = [](int op, int p, int q) {
        switch (op) {
            case 0: return p + q;
            case 1: return p - q;
            case 2: return p * q;
            default: return p ^ q;
        }
    };
    for (int i = 0; i < N; ++i) {
        int x = ha[i], y = hb[i];
        int op = (i / 4) % 4;
        int acc = apply(op, apply(op, apply(op, 1, x), y), i);
        int e[K] = {apply(i % 4, x, y), x > y ? x - y : x + y, acc, x * 3};
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], r[i * K + k]);
    }
    return t.finish();
}
