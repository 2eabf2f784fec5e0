// 059_matmul_tiled: matrix multiply C = A * B with 16x16 shared-memory tiles (two __syncthreads per tile),
// non-square sizes that are not multiples of the tile (zero padding at the edges), on integer-valued
// floats so the result is exact, against a triple-loop host product.
#include "conformance.h"

constexpr int TILE = 16;
constexpr int M = 37, K = 45, N = 29;  // A is M x K, B is K x N

__global__ void matmul(const float* A, const float* B, float* C, int m, int k, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t0 = 0; t0 < k; t0 += TILE) {
        int ac = t0 + threadIdx.x, br = t0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < m && ac < k) ? A[row * k + ac] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (br < k && col < n) ? B[br * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; ++j) acc += As[threadIdx.y][j] * Bs[j][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) C[row * n + col] = acc;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    static float A[M * K], B[K * N], C[M * N];
    for (int i = 0; i < M * K; ++i) A[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < K * N; ++i) B[i] = (float)((i * 5) % 13 - 6);
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, sizeof A));
    CHECK(cudaMalloc(&dB, sizeof B));
    CHECK(cudaMalloc(&dC, sizeof C));
    CHECK(cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul<<<grid, block>>>(dA, dB, dC, M, K, N);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            long long s = 0;  // integer products: exact
            for (int p = 0; p < K; ++p) s += (long long)A[i * K + p] * (long long)B[p * N + j];
            t.eq("C", i * N + j, (float)s, C[i * N + j]);
        }
    return t.finish();
}
