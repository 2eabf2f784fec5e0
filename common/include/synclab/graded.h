// Measurements a graded test case hands to the grader (synclab-grade), for tasks graded on speed.
//
//   TEST_CASE("... [speed]", "[lab03][task5][speed][pts:1]") {
//     ... check the result first: a wrong answer scores 0 however fast it is ...
//     synclab::graded::record_time_ms(r.kernel_ms);
//   }
//
// The grader runs the same case against the reference solution in the same grading run and gives
// full marks within 1.2x of the reference's time (docs/grader.md). On the simulator the time is the
// simulated one (cudaEventElapsedTime: the cost model's cycles), so it is the same on every machine;
// on a GPU it is the measured one.
//
// The value goes to the file descriptor named by SYNCLAB_GRADE_METRICS_FD (the grader's pipe); run
// outside the grader it is printed instead.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace synclab::graded {

inline void record_time_ms(double ms) {
  char line[64];
  const int n = std::snprintf(line, sizeof line, "time_ms %.9g\n", ms);
  if (const char* fd_text = std::getenv("SYNCLAB_GRADE_METRICS_FD")) {
    const int fd = std::atoi(fd_text);
    if (fd > 2 && n > 0 && ::write(fd, line, size_t(n)) == n) return;
  }
  std::printf("measured: %.6g ms\n", ms);
}

}  // namespace synclab::graded
