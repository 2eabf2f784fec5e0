// An instructor's hidden tests for lab 01 (what `synclab grade --hidden DIR` compiles in): more
// launch shapes than the published tests use. Reported with visibility "after_published" unless a
// [visibility:...] tag says otherwise.
#include <synclab/catch.h>

#include <vector>

#include "lab01.h"
#include "synclab_lab.h"

namespace {

// Host reference: S 90-100, A 80-89, B 70-79, C 60-69, D 50-59, E 40-49, U below 40.
std::vector<unsigned> host_histogram(const std::vector<int>& marks) {
  std::vector<unsigned> bins(lab01::kGrades, 0);
  for (int m : marks) {
    int g = 6;
    for (int band = 0, low = 90; band < 6; ++band, low -= 10)
      if (m >= low) { g = band; break; }
    ++bins[g];
  }
  return bins;
}

std::vector<int> marks_for(int n) {
  std::vector<int> marks(n);
  for (int i = 0; i < n; ++i) marks[i] = (i * 37 + 11) % 101;
  return marks;
}

}  // namespace

TEST_CASE("lab01 hidden histogram_atomic with 3 blocks of 40 threads", "[lab01][hidden][pts:1]") {
  const std::vector<int> marks = marks_for(300);
  synclab::lab::apply(synclab::lab::Schedule{"its", "random", 7, 3});
  lab01::HistogramResult r = lab01::run_histogram(lab01::HistogramKernel::atomic, marks, 3, 40);
  CHECK(r.reports.empty());
  CHECK(r.bins == host_histogram(marks));
}

TEST_CASE("lab01 hidden histogram_privatized with 5 blocks of 33 threads",
          "[lab01][hidden][pts:1][visibility:visible]") {
  const std::vector<int> marks = marks_for(500);
  synclab::lab::apply(synclab::lab::Schedule{"its", "random", 11, 3});
  lab01::HistogramResult r = lab01::run_histogram(lab01::HistogramKernel::privatized, marks, 5, 33);
  CHECK(r.reports.empty());
  CHECK(r.bins == host_histogram(marks));
}
