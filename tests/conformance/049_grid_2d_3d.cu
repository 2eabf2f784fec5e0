// 049_grid_2d_3d: 3-D grids of 3-D blocks (every blockIdx/threadIdx/gridDim/blockDim component
// recorded by every thread) and a 2-D grid over an image whose size is not a multiple of the block
// (bounds checks), with gridDim.y/z > 1 and blockDim.z > 1.
#include "conformance.h"

constexpr int GX = 3, GY = 2, GZ = 2;
constexpr int BX = 8, BY = 4, BZ = 2;
constexpr int TOTAL = GX * GY * GZ * BX * BY * BZ;
constexpr int IW = 70, IH = 20;

__global__ void ids3d(int* out) {
    int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int linear = block * (blockDim.x * blockDim.y * blockDim.z) + thread;
    int* o = out + linear * 4;
    o[0] = blockIdx.x | blockIdx.y << 8 | blockIdx.z << 16;
    o[1] = threadIdx.x | threadIdx.y << 8 | threadIdx.z << 16;
    o[2] = gridDim.x | gridDim.y << 8 | gridDim.z << 16;
    o[3] = blockDim.x | blockDim.y << 8 | blockDim.z << 16;
}

__global__ void image2d(const int* in, int* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int left = in[y * w + (x > 0 ? x - 1 : x)];
    int up = in[(y > 0 ? y - 1 : y) * w + x];
    out[y * w + x] = in[y * w + x] * 4 - left - up + x * 1000 + y;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int* d3;
    CHECK(cudaMalloc(&d3, sizeof(int) * TOTAL * 4));
    CHECK(cudaMemset(d3, 0xff, sizeof(int) * TOTAL * 4));
    ids3d<<<dim3(GX, GY, GZ), dim3(BX, BY, BZ)>>>(d3);
    CHECK_KERNEL();
    static int r3[TOTAL * 4];
    CHECK(cudaMemcpy(r3, d3, sizeof r3, cudaMemcpyDeviceToHost));
    int linear = 0;
    for (int bz = 0; bz < GZ; ++bz)
        for (int by = 0; by < GY; ++by)
            for (int bx = 0; bx < GX; ++bx)
                for (int tz = 0; tz < BZ; ++tz)
                    for (int ty = 0; ty < BY; ++ty)
                        for (int tx = 0; tx < BX; ++tx, ++linear) {
                            t.eq("blockIdx", linear, bx | by << 8 | bz << 16, r3[linear * 4 + 0]);
                            t.eq("threadIdx", linear, tx | ty << 8 | tz << 16, r3[linear * 4 + 1]);
                            t.eq("gridDim", linear, GX | GY << 8 | GZ << 16, r3[linear * 4 + 2]);
                            t.eq("blockDim", linear, BX | BY << 8 | BZ << 16, r3[linear * 4 + 3]);
                        }

    static int img[IW * IH], res[IW * IH];
    for (int k = 0; k < IW * IH; ++k) img[k] = (k * 31) % 97;
    int *din, *dres;
    CHECK(cudaMalloc(&din, sizeof img));
    CHECK(cudaMalloc(&dres, sizeof res));
    CHECK(cudaMemcpy(din, img, sizeof img, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dres, 0, sizeof res));
    dim3 block(16, 8);
    dim3 grid((IW + block.x - 1) / block.x, (IH + block.y - 1) / block.y);
    image2d<<<grid, block>>>(din, dres, IW, IH);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(res, dres, sizeof res, cudaMemcpyDeviceToHost));
    for (int y = 0; y < IH; ++y)
        for (int x = 0; x < IW; ++x) {
            int e = img[y * IW + x] * 4 - img[y * IW + (x > 0 ? x - 1 : x)] - img[(y > 0 ? y - 1 : y) * IW + x] + x * 1000 + y;
            t.eq("image", y * IW + x, e, res[y * IW + x]);
        }
    return t.finish();
}
