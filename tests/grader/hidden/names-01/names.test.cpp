// Hidden tests whose names hold the characters that Catch2's test-spec syntax gives a meaning
// ("," "*" quotes "\\"): the grader must still run each case alone and score it
// (tests/grader/cases/hidden-names-01). Each checks one histogram launch against a host count.
#include <synclab/catch.h>

#include <vector>

#include "lab01.h"
#include "synclab_lab.h"

namespace {

std::vector<unsigned> host_histogram(const std::vector<int>& marks) {
  std::vector<unsigned> bins(lab01::kGrades, 0);
  for (int m : marks) ++bins[m >= 90 ? 0 : m >= 40 ? 9 - m / 10 : 6];
  return bins;
}

void check_shape(lab01::HistogramKernel kernel, int n, int blocks, int threads) {
  std::vector<int> marks(n);
  for (int i = 0; i < n; ++i) marks[i] = (i * 53 + 7) % 101;
  synclab::lab::apply(synclab::lab::Schedule{"its", "rr", 1, 3});
  lab01::HistogramResult r = lab01::run_histogram(kernel, marks, blocks, threads);
  CHECK(r.reports.empty());
  CHECK(r.bins == host_histogram(marks));
}

}  // namespace

TEST_CASE("lab01 hidden histogram, atomic, 200 marks", "[lab01][hidden][pts:1]") {
  check_shape(lab01::HistogramKernel::atomic, 200, 2, 64);
}
TEST_CASE("lab01 hidden privatized with 2*32 threads", "[lab01][hidden][pts:1]") {
  check_shape(lab01::HistogramKernel::privatized, 150, 2, 32);
}
TEST_CASE("lab01 hidden \"privatized\" with 1 block", "[lab01][hidden][pts:1]") {
  check_shape(lab01::HistogramKernel::privatized, 90, 1, 96);
}
TEST_CASE("lab01 hidden atomic\\privatized agree", "[lab01][hidden][pts:1]") {
  check_shape(lab01::HistogramKernel::atomic, 120, 3, 8);
  check_shape(lab01::HistogramKernel::privatized, 120, 3, 8);
}
