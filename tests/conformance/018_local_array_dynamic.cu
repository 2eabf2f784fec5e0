// 018_local_array_dynamic: per-thread arrays indexed with run-time, data-dependent indices (forces
// local memory): a pseudo-random walk over an int array, an insertion sort, a local array of structs
// and a local double array, each checked against the same algorithm on the host.
#include "conformance.h"

constexpr int N = 256;
constexpr int L = 64;
constexpr int S = 16;

struct Item {
    short key;
    char tag;
    double weight;
};

__global__ void local_arrays(const unsigned* seed, int* walk_out, int* sorted_out, double* misc_out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= N) return;
    unsigned x = seed[t];
    int arr[L];
    for (int k = 0; k < L; ++k) arr[k] = (int)((x >> (k % 24)) & 0xff) - k;
    // random walk: reads and writes at data-dependent positions
    unsigned idx = x & (L - 1);
    int acc = 0;
    for (int step = 0; step < 200; ++step) {
        acc += arr[idx];
        arr[(idx * 7 + 3) & (L - 1)] ^= acc & 0xffff;
        idx = (unsigned)(arr[idx] + acc + step) & (L - 1);
    }
    walk_out[t] = acc;
    // insertion sort of S values
    int v[S];
    for (int k = 0; k < S; ++k) v[k] = arr[(x + 5 * k) & (L - 1)];
    for (int k = 1; k < S; ++k) {
        int key = v[k], j = k - 1;
        while (j >= 0 && v[j] > key) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = key;
    }
    for (int k = 0; k < S; ++k) sorted_out[t * S + k] = v[k];
    // a local array of structs and one of doubles, indexed by data
    Item items[8];
    double d[8];
    for (int k = 0; k < 8; ++k) {
        items[k].key = (short)(v[k] * 3);
        items[k].tag = (char)('a' + k);
        items[k].weight = 0.5 * k;
        d[k] = (double)v[S - 1 - k];
    }
    int pick = (int)(x % 8), other = (int)((x >> 3) % 8);
    items[pick].weight += d[other];
    d[pick] = items[other].key + items[pick].weight;
    double s = 0;
    for (int k = 0; k < 8; ++k) s += d[k] * (k + 1) + items[k].tag;
    misc_out[t] = s;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(18);
    static unsigned hseed[N];
    for (int k = 0; k < N; ++k) hseed[k] = rng.next_u32();
    unsigned* dseed;
    int *dwalk, *dsorted;
    double* dmisc;
    CHECK(cudaMalloc(&dseed, sizeof hseed));
    CHECK(cudaMalloc(&dwalk, sizeof(int) * N));
    CHECK(cudaMalloc(&dsorted, sizeof(int) * N * S));
    CHECK(cudaMalloc(&dmisc, sizeof(double) * N));
    CHECK(cudaMemcpy(dseed, hseed, sizeof hseed, cudaMemcpyHostToDevice));
    local_arrays<<<N / 64, 64>>>(dseed, dwalk, dsorted, dmisc);
    CHECK_KERNEL();
    static int rwalk[N], rsorted[N * S];
    static double rmisc[N];
    CHECK(cudaMemcpy(rwalk, dwalk, sizeof rwalk, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rsorted, dsorted, sizeof rsorted, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rmisc, dmisc, sizeof rmisc, cudaMemcpyDeviceToHost));

    for (int tt = 0; tt < N; ++tt) {
        unsigned x = hseed[tt];
        int arr[L];
        for (int k = 0; k < L; ++k) arr[k] = (int)((x >> (k % 24)) & 0xff) - k;
        unsigned idx = x & (L - 1);
        int acc = 0;
        for (int step = 0; step < 200; ++step) {
            acc += arr[idx];
            arr[(idx * 7 + 3) & (L - 1)] ^= acc & 0xffff;
            idx = (unsigned)(arr[idx] + acc + step) & (L - 1);
        }
        t.eq("walk", tt, acc, rwalk[tt]);
        int v[S];
        for (int k = 0; k < S; ++k) v[k] = arr[(x + 5 * k) & (L - 1)];
        // reference sort: selection sort (a different algorithm, same result)
        for (int a = 0; a < S; ++a)
            for (int b = a + 1; b < S; ++b)
                if (v[b] < v[a]) { int tmp = v[a]; v[a] = v[b]; v[b] = tmp; }
        for (int k = 0; k < S; ++k) t.eq("sorted", tt * S + k, v[k], rsorted[tt * S + k]);
        double w[8], d[8];
        short key[8];
        for (int k = 0; k < 8; ++k) {
            key[k] = (short)(v[k] * 3);
            w[k] = 0.5 * k;
            d[k] = (double)v[S - 1 - k];
        }
        int pick = (int)(x % 8), other = (int)((x >> 3) % 8);
        w[pick] += d[other];
        d[pick] = key[other] + w[pick];
        double s = 0;
        for (int k = 0; k < 8; ++k) s += d[k] * (k + 1) + (char)('a' + k);
        t.eq("structs", tt, s, rmisc[tt]);
    }
    return t.finish();
}
