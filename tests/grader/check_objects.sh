#!/usr/bin/env bash
# CTest grader.check_objects: the rules for what a compiled student file may contain
# (grader/src/object_check.h), on small programs in tests/grader/objects/. Each file says what
# `synclab-grade check-object` must report on it ("// expect: TEXT", one or more lines), or
# "// expect: ok" for a file that must pass: the ordinary twin that keeps the rules from
# rejecting what students legitimately write.
#
#   check_objects.sh GRADER NVCC SOURCE_ROOT
set -uo pipefail
grader="$1" nvcc="$2" root="$3"
dir="$root/tests/grader/objects"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0 files=0
for src in "$dir"/*.cu; do
  files=$((files + 1))
  name="$(basename "$src" .cu)"
  obj="$tmp/$name.o"
  if ! SYNCLAB_NO_CCACHE=1 "$nvcc" -std=c++17 -I"$root/common/include" -c "$src" -o "$obj" >"$tmp/$name.log" 2>&1; then
    echo "FAIL $name: does not compile"; cat "$tmp/$name.log"; failures=$((failures + 1)); continue
  fi
  out="$("$grader" check-object "$obj" 2>&1)"
  rc=$?
  mapfile -t expects < <(sed -n 's|^// expect: ||p' "$src")
  [ ${#expects[@]} -gt 0 ] || { echo "FAIL $name: no '// expect:' line"; failures=$((failures + 1)); continue; }
  ok=1
  for e in "${expects[@]}"; do
    if [ "$e" = ok ]; then
      [ $rc -eq 0 ] && grep -q ": ok$" <<<"$out" || ok=0
    else
      [ $rc -eq 1 ] && grep -qF -- "$e" <<<"$out" || ok=0
    fi
  done
  if [ $ok = 1 ]; then
    echo "ok   $name"
  else
    echo "FAIL $name: expected ${expects[*]}; check-object said (status $rc):"
    sed 's/^/       /' <<<"$out"
    failures=$((failures + 1))
  fi
done
echo "$files files, $failures failed"
[ $failures -eq 0 ]
