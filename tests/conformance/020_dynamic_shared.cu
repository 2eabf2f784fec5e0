// 020_dynamic_shared: extern __shared__ dynamic shared memory: a launch with 0 bytes, one with the full
// 48 KiB (every byte written and read back by other threads), and one carving several typed arrays
// (double, int, char) out of a run-time sized buffer.
#include "conformance.h"

constexpr int BLOCK = 256;
constexpr int BLOCKS = 2;
constexpr int BIG = 48 * 1024;           // bytes of dynamic shared memory
constexpr int BIG_INTS = BIG / 4;        // 12288
constexpr int PER_THREAD = BIG_INTS / BLOCK;  // 48

__global__ void no_dynamic(int* out) {  // launched with 0 bytes of dynamic shared memory
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = gid * 2 + 1;
}

__global__ void full_48k(const int* in, long long* out) {
    extern __shared__ int buf[];
    int tid = threadIdx.x;
    for (int k = 0; k < PER_THREAD; ++k) buf[k * BLOCK + tid] = in[blockIdx.x] + k * BLOCK + tid;
    __syncthreads();
    long long s = 0;
    for (int k = 0; k < PER_THREAD; ++k) s += (long long)buf[BIG_INTS - 1 - (tid * PER_THREAD + k)] * (k + 1);
    out[blockIdx.x * BLOCK + tid] = s;
}

__global__ void carved(int n, double* dout, int* iout, int* cout) {
    extern __shared__ double dyn[];               // double-aligned base
    double* d = dyn;                              // n doubles
    int* iv = (int*)(d + n);                      // n ints
    unsigned char* cv = (unsigned char*)(iv + n); // n chars
    int tid = threadIdx.x;
    d[tid] = tid * 1.5;
    iv[tid] = -tid;
    cv[tid] = (unsigned char)(tid + 100);
    __syncthreads();
    int o = (tid + 1) % n;
    int gid = blockIdx.x * n + tid;
    dout[gid] = d[o];
    iout[gid] = iv[o];
    cout[gid] = cv[(tid * 3) % n];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int *dsmall, *din, *diout, *dcout;
    long long* dbig;
    double* ddout;
    int hin[BLOCKS] = {1000, -7};
    CHECK(cudaMalloc(&dsmall, sizeof(int) * BLOCK * BLOCKS));
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dbig, sizeof(long long) * BLOCK * BLOCKS));
    CHECK(cudaMalloc(&ddout, sizeof(double) * BLOCK * BLOCKS));
    CHECK(cudaMalloc(&diout, sizeof(int) * BLOCK * BLOCKS));
    CHECK(cudaMalloc(&dcout, sizeof(int) * BLOCK * BLOCKS));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));

    no_dynamic<<<BLOCKS, BLOCK, 0>>>(dsmall);
    CHECK_KERNEL();
    full_48k<<<BLOCKS, BLOCK, BIG>>>(din, dbig);
    CHECK_KERNEL();
    int n = BLOCK;
    size_t bytes = n * (sizeof(double) + sizeof(int) + sizeof(unsigned char));
    carved<<<BLOCKS, n, bytes>>>(n, ddout, diout, dcout);
    CHECK_KERNEL();

    static int rsmall[BLOCK * BLOCKS], riout[BLOCK * BLOCKS], rcout[BLOCK * BLOCKS];
    static long long rbig[BLOCK * BLOCKS];
    static double rdout[BLOCK * BLOCKS];
    CHECK(cudaMemcpy(rsmall, dsmall, sizeof rsmall, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rbig, dbig, sizeof rbig, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rdout, ddout, sizeof rdout, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(riout, diout, sizeof riout, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rcout, dcout, sizeof rcout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
        // the 48 KiB buffer as the host would fill it: element j holds in[b] + j
        static int buf[BIG_INTS];
        for (int j = 0; j < BIG_INTS; ++j) buf[j] = hin[b] + j;
        for (int tid = 0; tid < BLOCK; ++tid) {
            int gid = b * BLOCK + tid;
            t.eq("no_dynamic", gid, gid * 2 + 1, rsmall[gid]);
            long long s = 0;
            for (int k = 0; k < PER_THREAD; ++k) s += (long long)buf[BIG_INTS - 1 - (tid * PER_THREAD + k)] * (k + 1);
            t.eq("full_48k", gid, s, rbig[gid]);
            int o = (tid + 1) % n;
            t.eq("carved.double", gid, o * 1.5, rdout[gid]);
            t.eq("carved.int", gid, -o, riout[gid]);
            t.eq("carved.char", gid, ((tid * 3) % n + 100) & 0xff, rcout[gid]);
        }
    }
    return t.finish();
}
