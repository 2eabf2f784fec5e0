#!/usr/bin/env bash
# clang_tidy.py on a small tree of its own: a file with a finding fails, named with clang-tidy's
# words; fixed, it passes and --record records it; run again, nothing is checked (the record
# stands for the same inputs); a change to a header it includes checks it again; a record from a
# tree at another path still matches (the keys leave the tree's path out); a file that includes the
# simulator's register values is left out under clang-tidy 14, named.
#
#   clang_tidy_selftest.sh SOURCE_ROOT
set -uo pipefail
script="$(cd "$1" && pwd)/tests/docs/clang_tidy.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "clang_tidy_selftest.sh: FAILED: $*"; exit 1; }
command -v clang-tidy >/dev/null || command -v clang-tidy-14 >/dev/null ||
  fail "clang-tidy is not installed (scripts/bootstrap --style installs it; ./synclab test does)"

make_tree() {  # make_tree DIR: a tree with one product file that copies a string it only reads
  local t="$1"
  mkdir -p "$t/sim/exec" "$t/tests/docs" "$t/build"
  printf "Checks: '-*,performance-unnecessary-value-param'\nWarningsAsErrors: '*'\n" >"$t/.clang-tidy"
  cat >"$t/sim/exec/sizes.h" <<'EOF'
#pragma once
#include <string>
inline constexpr int kLimit = 4;
EOF
  cat >"$t/sim/exec/sizes.cpp" <<'EOF'
#include "sim/exec/sizes.h"
int length_of(std::string s) { return int(s.size()) + kLimit; }
EOF
  cat >"$t/build/compile_commands.json" <<EOF
[{"directory": "$t/build", "command": "/usr/bin/c++ -I$t -std=gnu++17 -c $t/sim/exec/sizes.cpp -o sizes.o",
  "file": "$t/sim/exec/sizes.cpp"}]
EOF
}

t="$tmp/one"
make_tree "$t"
out="$(python3 "$script" "$t" "$t/build" --record 2>&1)" && fail "a file with a finding passed: $out"
grep -q "sim/exec/sizes.cpp:" <<<"$out" && grep -q "performance-unnecessary-value-param" <<<"$out" ||
  fail "the failure does not name the file and the check: $out"
[ ! -s "$t/tests/docs/clang_tidy.verified" ] || ! grep -q sizes.cpp "$t/tests/docs/clang_tidy.verified" ||
  fail "a file with a finding was recorded"
echo "ok: a finding fails, named: $(grep -m1 'warning\|error' <<<"$out" | sed 's/^ *//')"

sed -i 's/length_of(std::string s)/length_of(const std::string\& s)/' "$t/sim/exec/sizes.cpp"
out="$(python3 "$script" "$t" "$t/build" --record 2>&1)" || fail "the fixed file does not pass: $out"
grep -q "1 checked now" <<<"$out" && grep -q "sizes.cpp" "$t/tests/docs/clang_tidy.verified" ||
  fail "the fixed file was not checked and recorded: $out"
out="$(python3 "$script" "$t" "$t/build" 2>&1)" || fail "the recorded file fails: $out"
grep -q "0 checked now, 1 from the record" <<<"$out" || fail "the record was not used: $out"
echo "ok: fixed, it passes, is recorded, and is not checked again"

echo "inline constexpr int kMore = 5;" >>"$t/sim/exec/sizes.h"
out="$(python3 "$script" "$t" "$t/build" 2>&1)" || fail "after a header change: $out"
grep -q "1 checked now" <<<"$out" || fail "a change to an included header did not check the file again: $out"
echo "ok: a change to a header it includes checks it again"

# The same tree at another path, with the first tree's record: it matches.
t2="$tmp/elsewhere/two"
make_tree "$t2"
sed -i 's/length_of(std::string s)/length_of(const std::string\& s)/' "$t2/sim/exec/sizes.cpp"
python3 "$script" "$t" "$t/build" --record >/dev/null 2>&1 || true
echo "inline constexpr int kMore = 5;" >>"$t2/sim/exec/sizes.h"
cp "$t/tests/docs/clang_tidy.verified" "$t2/tests/docs/clang_tidy.verified"
out="$(python3 "$script" "$t2" "$t2/build" 2>&1)" || fail "the tree at another path fails: $out"
grep -q "0 checked now, 1 from the record" <<<"$out" || fail "a record from another path did not match: $out"
echo "ok: a record made at another path matches"

# A file that includes sim/exec/values.h (_Float16) is left out under clang-tidy before 15, named.
if clang-tidy --version 2>/dev/null | grep -qE 'version 1[0-4]\.'; then
  printf '#pragma once\nusing half_t = _Float16;\n' >"$t/sim/exec/values.h"
  printf '#include "sim/exec/values.h"\nint bits() { return sizeof(half_t); }\n' >"$t/sim/exec/half.cpp"
  python3 - "$t" <<'PY'
import json, sys
t = sys.argv[1]
db = json.load(open(f"{t}/build/compile_commands.json"))
db.append({"directory": f"{t}/build", "file": f"{t}/sim/exec/half.cpp",
           "command": f"/usr/bin/c++ -I{t} -std=gnu++17 -c {t}/sim/exec/half.cpp -o half.o"})
json.dump(db, open(f"{t}/build/compile_commands.json", "w"))
PY
  out="$(python3 "$script" "$t" "$t/build" 2>&1)" || fail "with a _Float16 file: $out"
  grep -q "1 files left out: they include sim/exec/values.h (_Float16).*sim/exec/half.cpp" <<<"$out" ||
    fail "the _Float16 file was not left out by name: $out"
  echo "ok: a file that includes sim/exec/values.h is left out, named, under $(clang-tidy --version | grep -o 'version [0-9.]*')"
fi
echo "ok: clang_tidy.py"
