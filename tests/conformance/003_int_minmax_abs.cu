// 003_int_minmax_abs: integer min/max (signed, unsigned, 64-bit), abs/llabs, negation, __sad/__usad,
// __mul24/__umul24 and the averaging intrinsics __hadd/__rhadd/__uhadd/__urhadd.
#include "conformance.h"

constexpr int N = 512;
constexpr int K = 22;

__global__ void minmax(const int* a, const int* b, const long long* la, const long long* lb, long long* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    long long lx = la[i], ly = lb[i];
    unsigned long long ulx = (unsigned long long)lx, uly = (unsigned long long)ly;
    long long* out = o + (long long)i * K;
    out[0] = min(x, y);
    out[1] = max(x, y);
    out[2] = min(ux, uy);
    out[3] = max(ux, uy);
    out[4] = min(lx, ly);
    out[5] = max(lx, ly);
    out[6] = (long long)min(ulx, uly);
    out[7] = (long long)max(ulx, uly);
    out[8] = abs(x == (int)0x80000000 ? 0 : x);
    out[9] = llabs(lx == (long long)0x8000000000000000ULL ? 0 : lx);
    out[10] = (int)(0u - ux);  // negation, wraps for INT_MIN
    out[11] = (long long)(0ULL - ulx);
    // The operands of these are kept small by the host (see below).
    int sx = x >> 12, sy = y >> 12;                  // 20-bit signed values
    out[12] = __sad(sx, sy, ux & 0xffff);            // |sx - sy| + z
    out[13] = __usad(ux >> 2, uy >> 2, uy & 0xff);   // |ux - uy| + z (unsigned)
    out[14] = __mul24(x >> 8, y >> 8);               // 24-bit signed operands
    out[15] = __umul24(ux >> 8, uy >> 8);            // 24-bit unsigned operands
    out[16] = __hadd(x, y);
    out[17] = __rhadd(x, y);
    out[18] = __uhadd(ux, uy);
    out[19] = __urhadd(ux, uy);
    out[20] = x < y ? (int)(uy - (unsigned)((x >> 1) / 2)) : x;  // select around a wrapping subtraction
    out[21] = (long long)(short)min((short)x, (short)y) + max((signed char)x, (signed char)y);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(3);
    const int edge[] = {0, 1, -1, 5, -5, 0x7fffffff, (int)0x80000000, 0x7fff, -0x8000, 0xffff, 0x12345, -0x12345,
                        0x00800000, (int)0xff800000, 100, -100};
    const int nedge = sizeof(edge) / sizeof(edge[0]);
    static int ha[N], hb[N];
    static long long hla[N], hlb[N];
    for (int i = 0; i < N; ++i) {
        ha[i] = i < nedge * nedge ? edge[i / nedge] : (int)rng.next_u32();
        hb[i] = i < nedge * nedge ? edge[i % nedge] : (int)rng.next_u32();
        hla[i] = i % 3 == 0 ? (long long)ha[i] : (long long)rng.next_u64();
        hlb[i] = i % 3 == 1 ? (long long)hb[i] : (long long)rng.next_u64();
    }
    hla[0] = (long long)0x8000000000000000ULL;
    hlb[0] = 0x7fffffffffffffffLL;
    hla[1] = -1;
    hlb[1] = 1;

    int *da, *db;
    long long *dla, *dlb, *dout;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dla, sizeof hla));
    CHECK(cudaMalloc(&dlb, sizeof hlb));
    CHECK(cudaMalloc(&dout, sizeof(long long) * N * K));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dla, hla, sizeof hla, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dlb, hlb, sizeof hlb, cudaMemcpyHostToDevice));
    minmax<<<N / 128, 128>>>(da, db, dla, dlb, dout);
    CHECK_KERNEL();
    static long long r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));

    const char* names[K] = {"min", "max", "umin", "umax", "min64", "max64", "umin64", "umax64", "abs", "llabs",
                            "neg", "neg64", "sad", "usad", "mul24", "umul24", "hadd", "rhadd", "uhadd", "urhadd",
                            "select", "narrow-minmax"};
    for (int i = 0; i < N; ++i) {
        long long x = ha[i], y = hb[i];
        unsigned long long ux = (unsigned)ha[i], uy = (unsigned)hb[i];
        long long lx = hla[i], ly = hlb[i];
        unsigned long long ulx = (unsigned long long)lx, uly = (unsigned long long)ly;
        long long e[K];
        e[0] = x < y ? x : y;
        e[1] = x < y ? y : x;
        e[2] = (long long)(ux < uy ? ux : uy);
        e[3] = (long long)(ux < uy ? uy : ux);
        e[4] = lx < ly ? lx : ly;
        e[5] = lx < ly ? ly : lx;
        e[6] = (long long)(ulx < uly ? ulx : uly);
        e[7] = (long long)(ulx < uly ? uly : ulx);
        e[8] = x == -2147483648LL ? 0 : (x < 0 ? -x : x);
        e[9] = lx == (long long)0x8000000000000000ULL ? 0 : (lx < 0 ? -lx : lx);
        e[10] = (int)(unsigned)((0x100000000ULL - ux) & 0xffffffffULL);
        e[11] = (long long)(0ULL - ulx);
        long long sx = x >= 0 ? x / 4096 : -((-x + 4095) / 4096);  // floor division = arithmetic shift
        long long sy = y >= 0 ? y / 4096 : -((-y + 4095) / 4096);
        e[12] = (long long)(unsigned)((sx > sy ? sx - sy : sy - sx) + (long long)(ux & 0xffff));
        unsigned long long qx = ux >> 2, qy = uy >> 2;
        e[13] = (long long)(unsigned)((qx > qy ? qx - qy : qy - qx) + (uy & 0xff));
        long long mx = x >= 0 ? x / 256 : -((-x + 255) / 256);
        long long my = y >= 0 ? y / 256 : -((-y + 255) / 256);
        e[14] = (int)(unsigned)((unsigned long long)(mx * my) & 0xffffffffULL);
        e[15] = (long long)(unsigned)(((ux >> 8) * (uy >> 8)) & 0xffffffffULL);
        long long s = x + y;
        e[16] = s >= 0 ? s / 2 : -((-s + 1) / 2);          // floor((x + y) / 2)
        long long s1 = s + 1;
        e[17] = s1 >= 0 ? s1 / 2 : -((-s1 + 1) / 2);       // floor((x + y + 1) / 2)
        e[18] = (long long)((ux + uy) / 2);
        e[19] = (long long)((ux + uy + 1) / 2);
        long long hx = x >= 0 ? x / 2 : -((-x + 1) / 2);   // x >> 1
        long long q = hx / 2;                              // C++ truncating division
        e[20] = x < y ? (int)(unsigned)((unsigned long long)(y - q) & 0xffffffffULL) : x;
        short a16 = (short)(ha[i] & 0xffff), b16 = (short)(hb[i] & 0xffff);
        signed char a8 = (signed char)(ha[i] & 0xff), b8 = (signed char)(hb[i] & 0xff);
        e[21] = (long long)(a16 < b16 ? a16 : b16) + (a8 < b8 ? b8 : a8);
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], r[(long long)i * K + k]);
    }
    return t.finish();
}
