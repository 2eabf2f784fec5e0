// synclab-challenge TRACE CHALLENGE: whether a trace reaches a challenge's goal (viz/core/challenge.h).
// Prints "goal reached in N steps: ..." (exit 0) or "goal not reached: ..." (exit 1); a file that
// cannot be read: a message and exit 2. ./synclab challenge uses it when there is no display.
#include <synclab/trace_reader.h>

#include <cstdio>
#include <string>

#include "viz/core/challenge.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: synclab-challenge TRACE CHALLENGE_FILE\n");
    return 2;
  }
  synclab::viz::Challenge c;
  std::string error;
  if (!synclab::viz::load_challenge(argv[2], &c, &error)) {
    std::fprintf(stderr, "synclab-challenge: %s\n", error.c_str());
    return 2;
  }
  auto t = synclab::trace::load(argv[1], &error);
  if (!t) {
    std::fprintf(stderr, "synclab-challenge: %s\n", error.c_str());
    return 2;
  }
  const synclab::viz::ChallengeResult r = synclab::viz::evaluate_challenge(c.check, *t);
  std::printf("%s\n", synclab::viz::describe(r).c_str());
  return r.reached ? 0 : 1;
}
