// 021_constant_memory: __constant__ arrays and a struct with static initializers, arrays written by
// cudaMemcpyToSymbol (whole and at an offset) and read back with cudaMemcpyFromSymbol, uniform and
// per-thread (divergent) constant indexing, and an update between two launches.
#include "conformance.h"

constexpr int N = 256;

struct Params {
    int n;
    float scale;
    double offset;
    char name[8];
};

__constant__ int c_sq[16] = {0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225};
__constant__ Params c_params = {7, 0.5f, -2.25, "synclab"};
__constant__ float c_coef[8];
__constant__ int c_table[64];

__global__ void use_constants(int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int uniform = c_params.n + c_params.name[3];                        // same address in every thread
    int divergent = c_sq[i % 16] + c_table[(i * 5) % 64];               // per-thread addresses
    double scaled = c_coef[i % 8] * c_params.scale + c_params.offset;  // float and double constants
    out[i] = uniform * 100000 + divergent * 10 + (int)(scaled * 4.0);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int htable[64];
    float hcoef[8];
    for (int k = 0; k < 64; ++k) htable[k] = 3 * k - 50;
    for (int k = 0; k < 8; ++k) hcoef[k] = 0.25f * k - 1.0f;
    CHECK(cudaMemcpyToSymbol(c_table, htable, sizeof htable));
    CHECK(cudaMemcpyToSymbol(c_coef, hcoef, sizeof hcoef));
    int* dout;
    CHECK(cudaMalloc(&dout, sizeof(int) * N));
    static int r1[N], r2[N];
    use_constants<<<N / 64, 64>>>(dout);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(r1, dout, sizeof r1, cudaMemcpyDeviceToHost));

    // overwrite entries 32..47 at an offset and launch again
    int patch[16];
    for (int k = 0; k < 16; ++k) patch[k] = 1000 + k;
    CHECK(cudaMemcpyToSymbol(c_table, patch, sizeof patch, 32 * sizeof(int), cudaMemcpyHostToDevice));
    use_constants<<<N / 64, 64>>>(dout);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(r2, dout, sizeof r2, cudaMemcpyDeviceToHost));

    // read constants back
    int back[64], sq[16];
    Params p;
    CHECK(cudaMemcpyFromSymbol(back, c_table, sizeof back));
    CHECK(cudaMemcpyFromSymbol(sq, c_sq, sizeof sq));
    CHECK(cudaMemcpyFromSymbol(&p, c_params, sizeof p));
    int tail[4];
    CHECK(cudaMemcpyFromSymbol(tail, c_table, sizeof tail, 44 * sizeof(int), cudaMemcpyDeviceToHost));

    const char name[8] = "synclab";
    int table2[64];
    for (int k = 0; k < 64; ++k) table2[k] = (k >= 32 && k < 48) ? 1000 + (k - 32) : 3 * k - 50;
    for (int pass = 0; pass < 2; ++pass) {
        const int* table = pass == 0 ? htable : table2;
        const int* r = pass == 0 ? r1 : r2;
        for (int i = 0; i < N; ++i) {
            int uniform = 7 + name[3];
            int divergent = (i % 16) * (i % 16) + table[(i * 5) % 64];
            double scaled = (double)(0.25f * (i % 8) - 1.0f) * 0.5 + -2.25;
            int e = uniform * 100000 + divergent * 10 + (int)(scaled * 4.0);
            t.eq(pass == 0 ? "launch1" : "launch2", i, e, r[i]);
        }
    }
    for (int k = 0; k < 64; ++k) t.eq("fromSymbol.table", k, table2[k], back[k]);
    for (int k = 0; k < 16; ++k) t.eq("fromSymbol.sq", k, k * k, sq[k]);
    for (int k = 0; k < 4; ++k) t.eq("fromSymbol.offset", k, table2[44 + k], tail[k]);
    t.eq("params.n", 0, 7, p.n);
    t.eq("params.scale", 0, 0.5f, p.scale);
    t.eq("params.offset", 0, -2.25, p.offset);
    t.check(std::strcmp(p.name, "synclab") == 0, "params.name: expected synclab, got %.8s", p.name);
    return t.finish();
}
