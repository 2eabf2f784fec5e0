// Needleman-Wunsch by warps that own strips of columns (bench/lab09_tinylock, not a lab task).
//
// The lab's tiles (nw_tile.cuh) keep every cell in global memory and put a block barrier between
// two anti-diagonals of a 16 x 16 tile: 31 barriers and 768 global loads for 256 cells. Here one
// warp owns a strip of 32 * R columns. Lane l owns R neighbouring columns and walks down the rows
// one step behind lane l - 1, Q rows a step: at step t it computes rows r0 + Q(t - l) .. + Q - 1
// of its columns. Its north cells are its own registers (the last row of its block before), its
// west cells come from lane l - 1 by shuffles (lane l - 1 computed them at the step before), so a
// cell costs a few register instructions (a byte permutation picks the match score, two add-max
// instructions) and no barrier. A block of rows is complete once lane 31 has computed it; it goes
// through a ring in shared memory and out to global memory in 16-byte stores, a row of the strip
// at a time.
//
// Two ways to order the strips (they share nw_strip_rows):
//   strips-dataflow   one launch, a warp per strip. Strip s needs the column just west of it,
//                     strip s - 1's last column, row by row, and takes it one cell at a time as
//                     strip s - 1 writes it: each cell is its own message (nw_strip_rows says how;
//                     the paper's section 6: a consumer fires once its operands have arrived).
//                     No barrier, flag or launch between two strips. Warps take strips from a
//                     ticket counter in the order they start, so a warp waits only for a strip
//                     taken by a warp that is already running.
//   strips-wavefront  the data-parallel order of the same work: tiles of 32 * R columns x RT
//                     rows, one launch per anti-diagonal of tiles, a warp per tile; the launch
//                     boundary orders a tile after its north and west neighbours.
// Both fill the matrix in strip_at's layout (below), checked against the host fill.
#pragma once

#include <type_traits>

#include "nw_tile.cuh"

// A cell's value is never this (scores stay within -2n .. 2n): a west cell still holding it has not
// been written yet.
constexpr int kNwPoison = -2147483647 - 1;

__device__ inline int ld_relaxed_gpu(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline void st_relaxed_gpu(int* p, int v) {
  asm volatile("st.relaxed.gpu.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// The strips' layout of the score matrix: rows of n + 32 ints, cell (i, j) at i * (n + 32) + j + 31,
// so that the first column of every strip (1 + s * 32R) starts a 128-byte line. (The lab's S has
// rows of n + 1 ints: its strips would start anywhere in a line, and no lane could store 16 bytes.)
// (int offsets: n up to kStripsMaxN.)
constexpr int kStripsMaxN = 32768;
__host__ __device__ inline int strip_pitch(int n) { return n + 32; }
__host__ __device__ inline int strip_at(int n, int i, int j) { return i * strip_pitch(n) + j + 31; }

__device__ inline void st_relaxed_gpu_v4(int4* p, int4 v) {
  asm volatile("st.relaxed.gpu.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// Block-scope accesses for the hand-over between two warps of one block (strips-dataflow-block;
// ld_acquire_cta and st_release_cta are tinylock.cuh's).
// (volatile accesses, relaxed at system scope in PTX: unlike inline PTX with a "memory" clobber,
// they leave the compiler free to move the block's other shared-memory accesses around them)
__device__ inline unsigned ld_relaxed_cta(const unsigned* p) { return *static_cast<const volatile unsigned*>(p); }
__device__ inline void st_relaxed_cta(unsigned* p, unsigned v) { *static_cast<volatile unsigned*>(p) = v; }

// The hand-over between two warps of one block (strips-dataflow-block): a ring of kHandRows words
// in shared memory, the east column of the west warp's strip, row i in word i mod kHandRows. Each
// word is its own message, as in global memory, but a ring's words are written again (row i +
// kHandRows in the word of row i), so a word carries its row's lap (i / kHandRows) in its top 12
// bits above the cell's 20 (scores stay within -2n .. 2n, n <= kStripsMaxN): a reader takes a word
// whose lap is its row's, and the value in it is final. The reader tells how far it has read
// (a release store of its next row, every 16 steps); the writer, every 32 steps, waits until the
// words it is about to write again have been read (an acquire load of that). So the writer may run
// up to 256 - 32Q - 16Q - Q rows ahead of the reader before it waits (Q <= 4), which it is not in
// a fill on a GPU (the reader runs about 35 steps behind it), but may be under a simulator's
// schedule.
constexpr int kHandRows = 256;
constexpr unsigned kHandEmpty = 0xfff00000u;  // a lap no row has: a word not written yet
__host__ __device__ inline unsigned hand_word(int row, int v) {
  return (unsigned(v) & 0xfffffu) | (unsigned(row / kHandRows) << 20);
}
__device__ inline bool hand_has(unsigned w, int row) { return (w >> 20) == unsigned(row / kHandRows); }
__device__ inline int hand_value(unsigned w) { return int(w << 12) >> 12; }

// The bank conflicts of one ring store: lane l stores R / 4 vectors of 16 bytes into row c - Q * l,
// and shared memory serves 8 lanes' vectors at a time. Lanes per group of banks, at most, for a
// row pitch of 32R + 4 * pad words; and the pad (0..7) with the fewest.
constexpr int strip_conflicts(int R, int Q, int pad) {
  const int k4 = 8 * R + pad;  // the pitch in vectors
  int most = 0;
  for (int v = 0; v < R / 4; ++v)
    for (int phase = 0; phase < 4; ++phase)
      for (int g = 0; g < 8; ++g) {
        int lanes = 0;
        for (int l = 8 * phase; l < 8 * phase + 8; ++l) {
          const int u = (64 * Q - Q * l) * k4 + l * (R / 4) + v;  // (a positive row)
          lanes += u % 8 == g;
        }
        most = lanes > most ? lanes : most;
      }
  return most;
}
constexpr int strip_pad(int R, int Q) {
  int best = 0;
  for (int pad = 1; pad < 8; ++pad)
    if (strip_conflicts(R, Q, pad) < strip_conflicts(R, Q, best)) best = pad;
  return best;
}

// One warp's ring in shared memory: the blocks of 33 steps, Q rows of 32 * R cells each (lane 0 is
// 31 steps ahead of lane 31, and a block's rows leave one step after lane 31 wrote them).
template <int R, int Q>
struct StripShape {
  static_assert(R % 4 == 0, "a lane's columns are whole 16-byte vectors");
  static constexpr int kSteps = 33;
  static constexpr int kRows = kSteps * Q;
  static constexpr int kPitch = 32 * R + 4 * strip_pad(R, Q);
  static constexpr int kWords = kRows * kPitch;
};

// Rows r0 .. r1 - 1 (1-based; r1 - r0 a multiple of 32) of strip s (columns 1 + s * 32R ..
// (s + 1) * 32R) of M (strip_at's layout), by one warp. Lane l computes a block of Q rows x R
// columns per step: at step t the rows r0 + Q(t - l) ..; the west cells of its Q rows come from
// lane l - 1 (it computed them at the step before), and the compiler overlaps the block's
// anti-diagonals. M's row r0 - 1 must be there. The west column: when `west_message` is false it
// is there already (the launch before wrote it); when true, the west strip is still writing it,
// and each cell is its own message: the column held kNwPoison before (the west strip wrote that
// and released `west_started`, which this warp acquires first), the west strip stores each final
// value with a relaxed store, and this warp reads the cells with relaxed loads until none is
// kNwPoison. No flag, fence or acquire per row: a cell read is the poison or its final value
// (coherence). `east_message`: this strip has an east neighbour reading it so.
// ring: StripShape<R, Q>::kWords ints, 16-byte aligned. stamps (--nw-strips-profile): %globaltimer
// at the start, once the first chunk of west cells is there, and at the end, then how many times a
// chunk's west cells were not all written yet; or nullptr.
// WH, EH: whether west_hand and east_hand may be given (compiled in only where a caller needs them).
template <int R, int Q, bool WH = false, bool EH = false>
__device__ void nw_strip_rows(int* M, const int* a, const int* b, int n, int s, int r0, int r1, bool west_message,
                              const int* west_started, bool east_message, int* my_started, int* ring,
                              long long* stamps = nullptr, unsigned* east_hand = nullptr, const int* east_read = nullptr,
                              const unsigned* west_hand = nullptr, int* west_read = nullptr, bool west_rows = false) {
  using Shape = StripShape<R, Q>;
  constexpr unsigned kAll = 0xffffffffu;
  constexpr int kCols = 32 * R, kPitch = Shape::kPitch, kVec = R / 4;
  constexpr int kChunkSteps = 32 / Q;  // steps of one chunk of 32 rows (below)
  static_assert(32 % Q == 0 && Q <= 16, "a chunk is whole blocks of rows");
  const int lane = int(threadIdx.x) & 31;
  const int P = strip_pitch(n);
  const int c0 = 1 + s * kCols;  // the strip's first column
  const int j0 = c0 + lane * R;  // this lane's first column
  const int rows = r1 - r0;
  if (east_message) {  // poison the east column, then say so
    for (int row = r0 + lane; row < r1; row += 32) st_relaxed_gpu(&M[strip_at(n, row, c0 + kCols - 1)], kNwPoison);
    __syncwarp();
    if (lane == 0) st_release_gpu(my_started, 1);
  }
  if (west_message) {
    if (lane == 0)
      while (ld_acquire_gpu(west_started) == 0) {
      }
    __syncwarp();
  }
  int H[R];   // this lane's cells of the last row it computed (north of its next block)
  // The match scores of this lane's columns: byte L of pr[r] is p(L, b's letter of column j0 + r)
  // + 1 (p is 2 or -1), so that one byte permutation picks the score of row letter L.
  unsigned pr[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    H[r] = M[strip_at(n, r0 - 1, j0 + r)];
    const int bj = b[j0 + r - 1];
    pr[r] = 0;
    for (int L = 0; L < 4; ++L) pr[r] |= unsigned(nw_match(L, bj) + 1) << (8 * L);
  }
  int corner = M[strip_at(n, r0 - 1, j0 - 1)];  // north-west of the lane's next block
  int E[Q];                                     // this lane's east cells of its last block
#pragma unroll
  for (int q = 0; q < Q; ++q) E[q] = 0;
  int letters = 0;  // a's letters of this lane's block, 2 bits a row
  long long waits = 0;
  // A chunk of 32 rows from `first`: lane k loads row first + k's west cell, and (k < 32 / Q) the
  // letters of rows first + Qk .. first + Qk + Q - 1 (packed by pack() once they have arrived).
  auto fetch = [&](int first, int& fw, int (&fl)[Q]) {
    const int row = first + lane;
    const int* p = &M[strip_at(n, row, c0 - 1)];
    fw = row >= r1 || (WH && west_hand) ? 0 : west_message ? ld_relaxed_gpu(p) : *p;
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      const int rq = first + Q * lane + q;
      fl[q] = lane < kChunkSteps && rq < r1 ? a[rq - 1] : 0;
    }
  };
  auto pack = [](const int (&fl)[Q]) {
    int v = 0;
#pragma unroll
    for (int q = 0; q < Q; ++q) v |= fl[q] << (2 * q);
    return v;
  };
  // Until every west cell of the chunk has its final value.
  auto settle = [&](int first, int& fw) {
    if (!west_message) return;
    const int* p = &M[strip_at(n, first + lane, c0 - 1)];
    while (!__all_sync(kAll, fw != kNwPoison)) {
      ++waits;
      if (fw == kNwPoison) fw = ld_relaxed_gpu(p);
    }
  };
  auto now = [] {
    long long v;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(v));
    return v;
  };
  if (stamps && lane == 0) stamps[0] = now();
  int cur_w, cur_l, next_w = 0, next_l[Q];
  {
    int fl[Q];
    fetch(r0, cur_w, fl);
    cur_l = pack(fl);
  }
  if (!west_rows) settle(r0, cur_w);
  if (stamps && lane == 0) stamps[1] = now();
  // The ring's slot of this lane's block at step t ((t - lane) mod 33) and of the block that
  // leaves at step t ((t - 32) mod 33), kept as counters.
  constexpr int K = Shape::kSteps;
  int wslot = (K - lane) % K, fslot = K - 32;
  // Where the block leaving at the first step with a flush (t = 32, rows r0 ..) goes, as vectors:
  // a strip's row starts a 16-byte vector (strip_at), and rows are P / 4 vectors apart.
  const int P4 = P / 4;
  int4* dst = reinterpret_cast<int4*>(M + strip_at(n, r0, c0)) + lane;
  // (west_hand) the words of lane 0's next Q rows, read a step ahead.
  const int steps = rows / Q;
  unsigned hw[Q];
  auto hand_load = [&](int first) {
#pragma unroll
    for (int q = 0; q < Q; ++q) hw[q] = ld_relaxed_cta(&west_hand[(first + q) % kHandRows]);
  };
  if (WH && west_hand) hand_load(r0);
  auto step = [&](int t, bool check, bool flush) {
    int4 out[Q][kVec];
    if (flush) {
      const int* from = ring + fslot * Q * kPitch + 4 * lane;
#pragma unroll
      for (int q = 0; q < Q; ++q)
#pragma unroll
        for (int v = 0; v < kVec; ++v) out[q][v] = *reinterpret_cast<const int4*>(from + q * kPitch + 128 * v);
    }
    const int m = t % kChunkSteps;
    if (m == 0) {
      const int first = r0 + Q * t;  // the chunk that starts now at lane 0
      if (t > 0 && first < r1) {
        cur_w = next_w, cur_l = pack(next_l);
        if (!west_rows) settle(first, cur_w);
      }
      if (first + 32 < r1) fetch(first + 32, next_w, next_l);
    }
    if (west_rows && west_message && t < steps) {
      // (west_rows) Only the rows lane 0 takes now must be there: lanes Qm .. Qm + Q - 1 of the
      // chunk. Every lane whose row is still the poison loads it again.
      const int* p = &M[strip_at(n, r0 + Q * (t - m) + lane, c0 - 1)];
      auto here = [&] {
        bool ok = true;
#pragma unroll
        for (int q = 0; q < Q; ++q) ok = ok && __shfl_sync(kAll, cur_w, Q * m + q) != kNwPoison;
        return ok;
      };
      while (!here()) {
        ++waits;
        if (cur_w == kNwPoison) cur_w = ld_relaxed_gpu(p);
      }
    }
    int in_w[Q], up_w[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      in_w[q] = __shfl_sync(kAll, cur_w, Q * m + q);
      up_w[q] = __shfl_up_sync(kAll, E[q], 1);
    }
    if (WH && west_hand && t < steps) {
      // Lane 0's west cells of rows r0 + Qt ..: every lane reads the same words (one broadcast
      // read); until each has its row's lap.
      const int first = r0 + Q * t;
      auto here = [&] {
        bool ok = true;
#pragma unroll
        for (int q = 0; q < Q; ++q) ok = ok && hand_has(hw[q], first + q);
        return ok;
      };
      while (!__all_sync(kAll, here())) {
        ++waits;
        hand_load(first);
      }
      if (stamps && lane == 0 && t == 0) stamps[1] = now();
#pragma unroll
      for (int q = 0; q < Q; ++q) in_w[q] = hand_value(hw[q]);
      if (t + 1 < steps) hand_load(first + Q);
      if (t % 16 == 0 && t > 0 && lane == 0) st_release_cta(west_read, first);  // rows before `first` are read
    }
    if (EH && east_hand && t >= 31 && t < steps + 31 && (t - 31) % 32 == 0) {
      // Lane 31 writes rows r0 + Q(t - 31) .. + 32Q - 1 in the next 32 steps, into words that held
      // rows kHandRows earlier: those must have been read.
      static_assert(32 * Q + 16 * Q + Q <= kHandRows, "the writer can always get 32 steps ahead");
      const int need = r0 + Q * (t - 31) + 32 * Q - kHandRows;
      while (!__all_sync(kAll, ld_acquire_cta(east_read) >= need)) {
      }
    }
    const int in_l = __shfl_sync(kAll, cur_l, m);
    const int up_l = __shfl_up_sync(kAll, letters, 1);
    const int i0 = r0 + Q * (t - lane);
    if (!check || (i0 >= r0 && i0 < r1)) {
      letters = lane == 0 ? in_l : up_l;
      int west[Q];
#pragma unroll
      for (int q = 0; q < Q; ++q) west[q] = lane == 0 ? in_w[q] : up_w[q];
      int* to = ring + wslot * Q * kPitch + lane * R;
#pragma unroll
      for (int q = 0; q < Q; ++q) {
        const unsigned pick = ((unsigned(letters) >> (2 * q)) & 3u) | 0x4440u;  // byte L of x, then zeros
        int diag = q == 0 ? corner : west[q - 1];
        int left = west[q];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int north = H[r];
          const int p = int(__byte_perm(pr[r], 0, pick)) - 1;
          // max(left - k, max(north - k, diag + p)): two add-max instructions, and the chain through
          // `left` (the cell before in this row) is the last one only
          const int v = __viaddmax_s32(left, -kNwGap, __viaddmax_s32(north, -kNwGap, diag + p));
          diag = north;
          left = v;
          H[r] = v;
        }
#pragma unroll
        for (int v = 0; v < kVec; ++v)
          *reinterpret_cast<int4*>(to + q * kPitch + 4 * v) = make_int4(H[4 * v], H[4 * v + 1], H[4 * v + 2], H[4 * v + 3]);
        E[q] = left;
      }
      corner = west[Q - 1];
      if (EH && east_hand && lane == 31) {
#pragma unroll
        for (int q = 0; q < Q; ++q) st_relaxed_cta(&east_hand[(i0 + q) % kHandRows], hand_word(i0 + q, E[q]));
      }
    }
    __syncwarp();  // the ring's rows are written before the next step's flush reads them
    wslot = wslot + 1 == K ? 0 : wslot + 1;
    fslot = fslot + 1 == K ? 0 : fslot + 1;
    if (flush) {
#pragma unroll
      for (int q = 0; q < Q; ++q) {
        int4* row = dst + q * P4;
#pragma unroll
        for (int v = 0; v < kVec - 1; ++v) row[32 * v] = out[q][v];
        int4* last = row + 32 * (kVec - 1);  // lane 31's ends with the east column
        if (east_message)
          st_relaxed_gpu_v4(last, out[q][kVec - 1]);
        else
          *last = out[q][kVec - 1];
      }
      dst += Q * P4;
    }
  };
  int t = 0;
  for (; t < 32; ++t) step(t, true, false);         // lanes start one step after each other
  for (; t < steps; ++t) step(t, false, true);       // every lane has a block
  for (; t < steps + 32; ++t) step(t, true, true);   // lanes finish one step after each other
  if (stamps && lane == 0) stamps[2] = now(), stamps[3] = waits;
}

// strips-dataflow: one launch of n / (32R) blocks of one warp; started[] and *next zeroed before.
template <int R, int Q>
__global__ void nw_strips_dataflow(int* M, const int* a, const int* b, int n, int* started, int* next,
                                   long long* stamps = nullptr) {
  extern __shared__ int4 ring4[];
  int s = 0;
  if (threadIdx.x == 0) s = atomicAdd(next, 1);  // strips in the order warps start
  s = __shfl_sync(0xffffffffu, s, 0);
  const int strips = n / (32 * R);
  nw_strip_rows<R, Q>(M, a, b, n, s, 1, n + 1, s > 0, s > 0 ? &started[s - 1] : nullptr, s + 1 < strips, &started[s],
                      reinterpret_cast<int*>(ring4), stamps ? stamps + 4 * s : nullptr);
}

// strips-dataflow-block: as strips-dataflow, but a block of K warps takes K neighbouring strips
// (one ticket), and the hand-over between two of its warps goes through a ring in shared memory
// (kHandRows above) instead of global memory: a shared-memory word is there for the next warp some
// tens of cycles after it is written, where a global one takes a trip through L2. Only the first
// warp of a block takes its west column from global memory, from the last warp of the block before.
// Shared memory: the K warps' rings, then K - 1 hand rings, then K counters (how far each warp has
// read its west hand ring).
template <int R, int Q, int K>
constexpr int strips_block_words() {
  return K * StripShape<R, Q>::kWords + (K - 1) * kHandRows + K;
}
// Rows: the first warp takes its west cells from global memory as soon as the rows of each step
// are there (nw_strip_rows' west_rows), not a chunk of 32 rows at a time.
template <int R, int Q, int K, bool Rows = false>
__global__ void nw_strips_dataflow_block(int* M, const int* a, const int* b, int n, int* started, int* next,
                                         long long* stamps = nullptr) {
  extern __shared__ int4 smem4[];
  __shared__ int ticket;
  int* rings = reinterpret_cast<int*>(smem4);
  unsigned* hand = reinterpret_cast<unsigned*>(rings + K * StripShape<R, Q>::kWords);
  int* read = reinterpret_cast<int*>(hand + (K - 1) * kHandRows);
  for (int i = int(threadIdx.x); i < (K - 1) * kHandRows; i += int(blockDim.x)) hand[i] = kHandEmpty;
  if (threadIdx.x < K) read[threadIdx.x] = 1;
  if (threadIdx.x == 0) ticket = atomicAdd(next, 1);  // K strips in the order blocks start
  __syncthreads();
  const int w = int(threadIdx.x) / 32;
  const int s = ticket * K + w;
  const int strips = n / (32 * R);
  if (s >= strips) return;  // (the last block, when K does not divide the strips)
  const bool first = w == 0, last = w == K - 1 || s + 1 == strips;
  auto run = [&](auto wh, auto eh) {
    nw_strip_rows<R, Q, decltype(wh)::value, decltype(eh)::value>(
        M, a, b, n, s, 1, n + 1, first && s > 0, first && s > 0 ? &started[s - 1] : nullptr,
        w == K - 1 && s + 1 < strips, &started[s], rings + w * StripShape<R, Q>::kWords, stamps ? stamps + 4 * s : nullptr,
        last ? nullptr : hand + w * kHandRows, last ? nullptr : &read[w + 1], first ? nullptr : hand + (w - 1) * kHandRows,
        first ? nullptr : &read[w], Rows);
  };
  using Y = std::true_type;
  using N = std::false_type;
  // (each warp's code holds only the hand-overs it makes)
  if (first && last)
    run(N{}, N{});
  else if (first)
    run(N{}, Y{});
  else if (last)
    run(Y{}, N{});
  else
    run(Y{}, Y{});
}

// strips-wavefront: the tiles (strip, row tile) with strip + row tile == td, a warp each.
template <int R, int Q>
__global__ void nw_strips_diagonal(int* M, const int* a, const int* b, int n, int rt, int td) {
  extern __shared__ int4 ring4[];
  const int row_tiles = n / rt;
  const int first = max(0, td - (row_tiles - 1));  // the first strip on diagonal td
  const int s = first + int(blockIdx.x);
  const int q = td - s;  // its row tile
  nw_strip_rows<R, Q>(M, a, b, n, s, 1 + q * rt, 1 + (q + 1) * rt, false, nullptr, false, nullptr,
                      reinterpret_cast<int*>(ring4));
}

// Lets the two kernels use their ring; false (and nothing set) when the device's opt-in limit of
// shared memory per block is smaller.
template <int R, int Q>
bool nw_strips_setup() {
  const int bytes = StripShape<R, Q>::kWords * int(sizeof(int));
  int dev = 0, optin = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (bytes > optin) return false;
  CHECK(cudaFuncSetAttribute(nw_strips_dataflow<R, Q>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  CHECK(cudaFuncSetAttribute(nw_strips_diagonal<R, Q>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  return true;
}

// One fill of M (strip_at's layout, its row 0 and column 0 holding the gap penalties) by
// strips-dataflow; started (n / 32R ints) and next are zeroed here.
template <int R, int Q>
void nw_strips_dataflow_fill(int* M, const int* a, const int* b, int n, int* started, int* next) {
  const int strips = n / (32 * R);
  CHECK(cudaMemsetAsync(started, 0, size_t(strips) * sizeof(int)));
  CHECK(cudaMemsetAsync(next, 0, sizeof(int)));
  nw_strips_dataflow<R, Q><<<strips, 32, StripShape<R, Q>::kWords * sizeof(int)>>>(M, a, b, n, started, next);
}

template <int R, int Q, int K, bool Rows = false>
bool nw_strips_block_setup() {
  const int bytes = strips_block_words<R, Q, K>() * int(sizeof(int));
  int dev = 0, optin = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (bytes + int(sizeof(int)) > optin) return false;
  CHECK(cudaFuncSetAttribute(nw_strips_dataflow_block<R, Q, K, Rows>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             bytes));
  return true;
}

// One fill by strips-dataflow-block; started (n / 32R ints) and next are zeroed here.
template <int R, int Q, int K, bool Rows = false>
void nw_strips_dataflow_block_fill(int* M, const int* a, const int* b, int n, int* started, int* next,
                                   long long* stamps = nullptr) {
  const int strips = n / (32 * R);
  CHECK(cudaMemsetAsync(started, 0, size_t(strips) * sizeof(int)));
  CHECK(cudaMemsetAsync(next, 0, sizeof(int)));
  nw_strips_dataflow_block<R, Q, K, Rows><<<(strips + K - 1) / K, 32 * K, strips_block_words<R, Q, K>() * sizeof(int)>>>(
      M, a, b, n, started, next, stamps);
}

// One fill by strips-wavefront with row tiles of rt rows (n a multiple of rt, rt of 32).
template <int R, int Q>
void nw_strips_wavefront_fill(int* M, const int* a, const int* b, int n, int rt) {
  const int strips = n / (32 * R), row_tiles = n / rt;
  for (int td = 0; td < strips + row_tiles - 1; ++td) {
    const int lo = std::max(0, td - (row_tiles - 1)), hi = std::min(td, strips - 1);
    nw_strips_diagonal<R, Q><<<hi - lo + 1, 32, StripShape<R, Q>::kWords * sizeof(int)>>>(M, a, b, n, rt, td);
  }
}
