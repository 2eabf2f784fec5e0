// Lab 01, find the bug: listing the students who passed an exam.
//
// marks holds one mark (0 to 100) per student; a mark of kPassMark or more passes. One thread per
// student (grid-stride loop, any grid shape). For each student who passed, the kernel appends the
// student's id to the list passed (in any order: each id once, in slots 0 .. count - 1, count
// being the number of ids listed) and adds the mark to total, the sum of the passing marks. count
// and total start at zero. The check compares the count, the sorted list and the total with the
// host's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int kPassMark = 50;
constexpr int kStudents = 300;
constexpr int kBlocks = 3;
constexpr int kThreads = 64;

__global__ void list_passes(const int* marks, int n, int* passed, unsigned* count, unsigned* total) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int mark = marks[i];
    if (mark < kPassMark) continue;
    atomicAdd(total, unsigned(mark));
    atomicAdd(count, 1u);
    passed[*count - 1] = i;
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_));   \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  std::vector<int> marks(kStudents);
  unsigned state = 31337u;
  for (int& m : marks) {
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    m = int(state % 101u);
  }

  int *d_marks = nullptr, *d_passed = nullptr;
  unsigned* d_sums = nullptr;  // count, total
  CHECK(cudaMalloc(&d_marks, kStudents * sizeof(int)));
  CHECK(cudaMalloc(&d_passed, kStudents * sizeof(int)));
  CHECK(cudaMalloc(&d_sums, 2 * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_marks, marks.data(), kStudents * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_passed, 0xff, kStudents * sizeof(int)));  // -1 in every slot
  CHECK(cudaMemset(d_sums, 0, 2 * sizeof(unsigned)));
  list_passes<<<kBlocks, kThreads>>>(d_marks, kStudents, d_passed, d_sums, d_sums + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> passed(kStudents);
  unsigned sums[2] = {0, 0};
  CHECK(cudaMemcpy(passed.data(), d_passed, kStudents * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_marks));
  CHECK(cudaFree(d_passed));
  CHECK(cudaFree(d_sums));

  std::vector<int> want;
  unsigned want_total = 0;
  for (int i = 0; i < kStudents; ++i) {
    if (marks[i] >= kPassMark) {
      want.push_back(i);
      want_total += unsigned(marks[i]);
    }
  }
  if (sums[0] != want.size()) {
    std::printf("wrong count: %u students listed, expected %zu\n", sums[0], want.size());
    return 1;
  }
  std::vector<int> got(passed.begin(), passed.begin() + want.size());
  std::sort(got.begin(), got.end());
  for (size_t k = 0; k < want.size(); ++k) {
    if (got[k] != want[k]) {
      std::printf("wrong list: sorted entry %zu is %d, expected student %d\n", k, got[k], want[k]);
      return 1;
    }
  }
  if (sums[1] != want_total) {
    std::printf("wrong total of the passing marks: %u, expected %u\n", sums[1], want_total);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
