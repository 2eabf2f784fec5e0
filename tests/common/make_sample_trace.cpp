// Writes the sample trace of sample_trace.h to the file named on the command line, and with
// --cut N a copy cut short after N bytes to a second file (for the synclab-trace tool tests).
#include "sample_trace.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: make_sample_trace OUT.trace [--cut BYTES CUT.trace]\n");
    return 2;
  }
  std::string err;
  if (!sample::write_lock_trace(argv[1], &err)) {
    std::fprintf(stderr, "make_sample_trace: %s\n", err.c_str());
    return 1;
  }
  if (argc == 5) {
    std::vector<unsigned char> all = tt::read_all(argv[1]);
    size_t n = std::strtoull(argv[3], nullptr, 10);
    if (n > all.size()) n = all.size();
    tt::write_all(argv[4], all.data(), n);
  }
  return 0;
}
