#!/usr/bin/env bash
# The toolkit's own C++ and CUDA (sim/, common/, viz/, grader/src, grader/guard) follows the
# tree's .clang-format. Lab files (student skeletons, whose hashes the grader checks), tests
# (fixtures whose line numbers expectations name) and benchmarks keep the layout they were written
# with. Fails naming each file that clang-format would change, with the command that fixes them.
#
#   clang_format.sh SOURCE_ROOT
set -uo pipefail
cd "$1" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "clang_format.sh: not a git checkout: nothing to list (skipped)"
  exit 0
fi
tool="$(command -v clang-format || command -v clang-format-14 || true)"
if [ -z "$tool" ]; then
  echo "clang_format.sh: FAILED: clang-format is not installed (scripts/bootstrap --style installs it; ./synclab test does)"
  exit 1
fi
mapfile -t files < <(git ls-files sim common viz grader/src grader/guard | grep -E '\.(c|cc|cpp|h|hpp|cu|cuh)$')
bad=()
# One call for all the files (clang-format's start-up is most of its time: 1 s against 22 s file by
# file); only when it finds something are the files checked one by one, to name them.
if ! "$tool" --dry-run -Werror "${files[@]}" >/dev/null 2>&1; then
  for f in "${files[@]}"; do
    "$tool" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  [ ${#bad[@]} -gt 0 ] || { echo "clang_format.sh: FAILED: $tool failed on the files together, on none alone"; exit 1; }
fi
if [ ${#bad[@]} -gt 0 ]; then
  printf '  %s\n' "${bad[@]}"
  echo "clang_format.sh: FAILED: ${#bad[@]} of ${#files[@]} files do not follow .clang-format; fix them with"
  echo "  $(basename "$tool") -i ${bad[*]}"
  exit 1
fi
echo "ok: ${#files[@]} files follow .clang-format ($("$tool" --version | head -1))"
