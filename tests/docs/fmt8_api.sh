#!/usr/bin/env bash
# The project compiles against fmt 8.1 as well as Debian 12's fmt 9: Gradescope's Ubuntu 22.04
# image (grader/gradescope/setup.sh.in) has libfmt-dev 8.1.1. So no tracked C++ or CUDA source may
# use what fmt added after 8.1 (fmt's ChangeLog, releases 9.0 to 11.0): fmt::streamed,
# fmt::underlying, fmt::styled and <fmt/std.h> (9.0), fmt::println (10.0), <fmt/base.h> (11.0).
# Fails naming each use.
#
#   fmt8_api.sh SOURCE_ROOT
set -uo pipefail
cd "$1" || exit 1
pattern='fmt::streamed|fmt::underlying|fmt::styled|fmt::println|<fmt/std\.h>|<fmt/base\.h>'
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "fmt8_api.sh: not a git checkout: nothing to list (skipped)"
  exit 0
fi
uses="$(git ls-files -z '*.cpp' '*.cc' '*.h' '*.hpp' '*.cu' '*.cuh' | xargs -0 -r grep -nE "$pattern" || true)"
if [ -n "$uses" ]; then
  echo "$uses"
  echo "fmt8_api.sh: FAILED: the lines above use fmt API newer than 8.1 (Ubuntu 22.04's), which Gradescope's image lacks"
  exit 1
fi
echo "ok: $(git ls-files '*.cpp' '*.cc' '*.h' '*.hpp' '*.cu' '*.cuh' | wc -l) sources use no fmt API newer than 8.1"
