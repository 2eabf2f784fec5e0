// Where in the host program a kernel was launched: the call stack is captured at the launch (a few
// return addresses, cheap) and turned into "file.cu:LINE (in FUNCTION)" only when a message needs
// it, by asking addr2line (binutils) about the program's own frames. Without host debug
// information (-g) the line is unknown and only the function is named; without addr2line,
// nothing is.
#pragma once

#include <string>
#include <vector>

namespace synclab::rt {

struct LaunchSite {
  std::vector<void*> frames;  // return addresses, innermost first
};

// The caller's call stack (at most 24 frames).
LaunchSite capture_launch_site();

// "at file.cu:12 (in main)", "from main" when the program has no line information, or "" when no
// frame of the program itself can be named. Frames of the simulator's runtime, of CUDA's headers and of
// the launch stubs nvcc generates (and of `kernel`, the host-side wrapper of the kernel launched,
// e.g. "left_running(int*)") are skipped: the first frame left is the launch as written.
std::string describe_launch_site(const LaunchSite& site, const std::string& kernel);

}  // namespace synclab::rt
