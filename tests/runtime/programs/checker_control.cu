// The control API's checker and trace settings, from a program: switching the race checker off
// and on changes whether a racy launch is reported; a bad checker name is refused; set_trace
// records launches into a file and "" closes it. On a GPU the calls are inert.
#include "check.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "synclab/sim_control.h"

// Two blocks add to one word with plain loads and stores: a race on every schedule.
__global__ void racy_add(int* p) {
  if (threadIdx.x == 0) *p = *p + 1;
}

int count_kind(const char* kind) {
  int n = 0;
  for (int i = 0; i < synclab::sim::report_count(); ++i) n += synclab::sim::report_kind(i) == kind;
  return n;
}

int main() {
  int* d = nullptr;
  CHECK_OK(cudaMalloc(&d, sizeof(int)));
  CHECK_OK(cudaMemset(d, 0, sizeof(int)));
  if (!synclab::sim::active()) {
    synclab::sim::set_checks("none");
    synclab::sim::set_trace("ignored.trace");
    racy_add<<<2, 32>>>(d);
    CHECK_OK(cudaDeviceSynchronize());
    CHECK_EQ_INT(synclab::sim::report_count(), 0);
    return finish("checker_control");
  }

  synclab::sim::set_checks("none");
  racy_add<<<2, 32>>>(d);
  CHECK_OK(cudaDeviceSynchronize());
  CHECK_EQ_INT(count_kind("race"), 0);

  synclab::sim::set_checks("race");
  racy_add<<<2, 32>>>(d);
  CHECK_OK(cudaDeviceSynchronize());  // a race is reported, not a launch failure
  CHECK_TRUE(count_kind("race") >= 1);

  bool threw = false;
  try {
    synclab::sim::set_checks("races");
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("races") != std::string::npos;
  }
  CHECK_TRUE(threw);

  // A file of this process's own: ctest runs this program for several tests at once in one folder.
  const std::string path_name = "checker_control." + std::to_string(getpid()) + ".trace";
  const char* path = path_name.c_str();
  std::remove(path);
  synclab::sim::set_trace(path);
  racy_add<<<2, 32>>>(d);
  CHECK_OK(cudaDeviceSynchronize());
  synclab::sim::set_trace("");  // closes the file
  std::FILE* f = std::fopen(path, "rb");
  CHECK_TRUE(f != nullptr);
  if (f) {
    char magic[8] = {0};
    CHECK_TRUE(std::fread(magic, 1, 8, f) == 8);
    CHECK_TRUE(std::memcmp(magic, "SYNCTRC1", 8) == 0);
    std::fclose(f);
  }
  std::remove(path);
  // Back to what the environment asked for (the leak test below runs this with SYNCLAB_CHECK=all,leak).
  const char* env = std::getenv("SYNCLAB_CHECK");
  synclab::sim::set_checks(env && *env ? env : "all");
  return finish("checker_control");
}
