// The PTX samples of tests/sim/ptx/ (SYNCLAB_PTX_SAMPLES), read whole for the tests that parse or
// load them.
#pragma once

#include <synclab/catch.h>

#include <fstream>
#include <sstream>
#include <string>

inline std::string read_ptx_sample(const std::string& name) {
  std::ifstream in(std::string(SYNCLAB_PTX_SAMPLES) + "/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
