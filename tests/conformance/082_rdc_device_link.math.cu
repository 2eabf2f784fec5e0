// 082_rdc_device_link.math.cu: the device functions of conformance program 082_rdc_device_link
// (separate compilation): called from the other translation units' kernels.

extern __device__ int g_scale;  // defined in 082_rdc_device_link.cu

__device__ unsigned mix(unsigned x, unsigned salt) {
    x ^= salt;
    x *= 0x9e3779b1u;
    x ^= x >> 15;
    return x + salt * 3u;
}

__device__ int scaled(int x) { return x * g_scale - 3; }
