#!/usr/bin/env bash
# The commands of README.md's command blocks (the lines of its ``` blocks that start with
# ./synclab, build/bin/, cmake or ctest), in order, from the root of the tree (whose build/ they
# use), with a fresh home directory and no display. Each is either RUN as written, with a
# placeholder (DIR, OUT, prog.cu) made real in a scratch directory, or, where running it here is
# too slow or is the test suite itself, CHECKED: the command and each of its options are in
# `./synclab help` (the script's usage, which its parser follows), and the test that runs it is
# named. The output says which for every command. Fails when a run exits non-zero or says what
# the README says it must not, when a command cannot be classified (a new README command needs a
# rule below), or when the README shows no command.
#
#   readme_commands.sh SOURCE_ROOT BUILD_DIR
set -uo pipefail
root="$(cd "$1" && pwd)"
build="$(cd "$2" && pwd)"
readme="$root/README.md"
fail() { echo "readme_commands.sh: FAILED: $*"; exit 1; }

[ -f "$readme" ] || fail "$readme is missing"
[ "$build" = "$(cd "$root/build" 2>/dev/null && pwd)" ] ||
  fail "the build directory is $build; the README's commands (./synclab) use $root/build"

# The command lines of the ``` blocks, without their trailing "# comment".
mapfile -t commands < <(awk '
  /^```/ { inside = !inside; next }
  inside && /^(\.\/synclab |build\/bin\/|cmake |ctest )/ {
    line = $0; sub(/[ \t]+#[ \t].*$/, "", line); print line }' "$readme")
[ ${#commands[@]} -gt 0 ] || fail "$readme shows no command in a \`\`\` block"

scratch="$(mktemp -d)"
made=()  # files the commands write into the tree's root (my.sched, lab01.zip): removed at the end
trap 'rm -rf "$scratch"; for f in "${made[@]}"; do rm -f "$root/$f"; done' EXIT
if [ -z "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null 2>&1; then
  CCACHE_DIR="$(ccache -k cache_dir 2>/dev/null)" && [ -n "$CCACHE_DIR" ] && export CCACHE_DIR
fi
export HOME="$scratch/home"
mkdir -p "$HOME"
unset DISPLAY WAYLAND_DISPLAY
cd "$root" || fail "cannot enter $root"
help="$(./synclab help)"

# The placeholders: DIR, a copy of lab 01's reference solutions; prog.cu, a small CUDA program of
# one's own (run in a scratch directory that sees the tree's build/).
sub="$scratch/submission"
mkdir -p "$sub" && cp "$root"/solutions/01-data-races/*.cu "$sub/" || fail "cannot make the placeholder DIR"
# (and the find-the-bug answer, docs/findbug.md: the reference fix of the program drawn without an id)
"$root/tests/grader/findbug_answer.sh" "$build/bin/synclab-grade" 01 "" "$sub" || fail "no find-the-bug answer for DIR"
progdir="$scratch/prog"
mkdir -p "$progdir" && ln -s "$root/build" "$progdir/build" || fail "cannot make the program's directory"
cat >"$progdir/prog.cu" <<'EOF'
#include <cstdio>
__global__ void add_one(int* x) { atomicAdd(x, 1); }
int main() {
  int* x;
  cudaMallocManaged(&x, sizeof(int));
  *x = 0;
  add_one<<<2, 32>>>(x);
  cudaDeviceSynchronize();
  std::printf("x = %d\n", *x);
  return *x == 64 ? 0 : 1;
}
EOF

# checked CMD WHY: the command and its options are in ./synclab help.
checked() {
  local cmd="$1" why="$2" word opt
  word="$(awk '{print $2}' <<<"$cmd")"
  grep -qE "^  $word( |$)" <<<"$help" || fail "\$ $cmd: './synclab help' has no command '$word'"
  for opt in $(grep -oE -- ' --[a-z-]+' <<<"$cmd"); do
    grep -q -- "$opt" <<<"$help" || fail "\$ $cmd: './synclab help' has no option $opt"
  done
  echo "checked, not run ($why): \$ $cmd"
}

# ran DIR CMD [REGEX...]: runs CMD in DIR; it must exit with $status (0 unless the caller sets
# it), and its output match every REGEX.
status=0
ran() {
  local dir="$1" cmd="$2" t0=$SECONDS out rc expect
  shift 2
  out="$(cd "$dir" && bash -c "$cmd" 2>&1 </dev/null)"
  rc=$?
  if [ $rc -ne "$status" ]; then
    printf '%s\n' "$out" | tail -n 60
    fail "\$ $cmd exited with status $rc (expected $status)"
  fi
  for expect in "$@"; do
    if ! grep -qE -- "$expect" <<<"$out"; then
      printf '%s\n' "$out" | tail -n 60
      fail "\$ $cmd: its output does not match /$expect/"
    fi
  done
  echo "ran ($((SECONDS - t0))s): \$ $cmd"
}

# A file the commands write into the root must not be there before (it would be lost).
will_make() {
  [ ! -e "$root/$1" ] || fail "$root/$1 exists; the README's commands would overwrite it (move it away)"
  made+=("$1")
}

# Whether build/ is complete: `./synclab build` would then only check it, not build everything.
complete=0
ninja -C build -n 2>/dev/null | grep -q "no work to do" && complete=1

for cmd in "${commands[@]}"; do
  case "$cmd" in
    "./synclab test")
      checked "$cmd" "it is the whole test suite, this test among it" ;;
    "./synclab slides")
      checked "$cmd" "needs npm and chromium; the test slides.decks runs it" ;;
    "./synclab build --gpu")
      checked "$cmd" "a second build tree, build-gpu/, of everything: 20 minutes and more" ;;
    "./synclab build --solutions")
      checked "$cmd" "a second build tree, build-solutions/, of everything: 20 minutes and more" ;;
    "./synclab export-student OUT [--labs 01,02]")
      checked "$cmd" "it builds the release's labs: the test grader.export_student runs it, with and without --labs" ;;
    "./synclab build")
      if [ $complete = 1 ]; then
        ran "$root" "$cmd"
      else
        checked "$cmd" "build/ is not complete here, so it would build everything"
      fi ;;
    "./synclab demo")
      ran "$root" "$cmd" "Demo done: all three outcomes as expected" ;;
    "./synclab scenario "[0-9][0-9])
      ran "$root" "$cmd" "run one with ./synclab scenario" ;;
    "./synclab scenario "[0-9][0-9]" "*)
      # It says what it builds and whose code it ran (README: the solutions while the files are
      # the untouched skeletons, which they are in this tree).
      ran "$root" "$cmd" "^building build/bin/sim/lab[0-9]+_solutions and the visualizer" \
        "runs build/bin/sim/lab[0-9]+_solutions: the reference solutions .*untouched skeletons" "^(picture|trace): " ;;
    "./synclab challenge")
      ran "$root" "$cmd" "lose-an-update" ;;
    "./synclab challenge 01 lose-an-update")
      ran "$root" "$cmd" ;;
    "build/bin/synclab-trace schedule build/challenges/01-lose-an-update.trace > my.sched")
      will_make my.sched
      ran "$root" "$cmd" ;;
    "./synclab challenge 01 lose-an-update --schedule my.sched")
      # The untouched run's schedule, not edited here: replayed, it misses the goal, says so and
      # exits 1 (an edited one that reaches it: the tests sim.challenge.*).
      status=1 ran "$root" "$cmd" "goal not reached: x ended at 2" ;;
    "./synclab grade --lab 01")
      ran "$root" "$cmd" "^score: 0 of [0-9]+ \(sim backend\)" ;;
    "./synclab grade --lab 01 --submission DIR")
      # DIR: a copy of the reference solutions, every point.
      ran "$root" "${cmd/DIR/$sub}" "^score: ([0-9.]+) of \1 \(sim backend\)" ;;
    "./synclab run --lab 01 --submission DIR "*)
      # DIR: a copy of the reference solutions, whose task passes (the harness exits 0).
      ran "$root" "${cmd/DIR/$sub}" "running build/run/01-[0-9a-f]{12}/lab01, lab 01's harness built from $sub" ;;
    "./synclab gradescope-package lab01.zip --lab 01")
      will_make lab01.zip
      ran "$root" "$cmd" "Gradescope autograder for lab 01"
      python3 -c 'import sys, zipfile; sys.exit("run_autograder" not in zipfile.ZipFile(sys.argv[1]).namelist())' \
        "$root/lab01.zip" || fail "lab01.zip has no run_autograder at its root" ;;
    "./synclab findbug 01")
      # Copies the program drawn (no id) to labs/01-data-races/findbug.cu, starts findbug.txt, runs
      # the handed-out program 32 times: it fails, and the output says how to replay and watch it.
      will_make labs/01-data-races/findbug.cu
      will_make labs/01-data-races/findbug.txt
      status=1 ran "$root" "$cmd" "your program is labs/01-data-races/findbug/[a-z_]+\.cu" \
        "^[0-9]+ of 32 runs failed" "^replay it: ./synclab findbug 01 --model" ;;
    "build/bin/synclab-nvcc -o prog prog.cu")
      ran "$progdir" "$cmd" ;;
    "build/bin/synclab-run --model lockstep -- ./prog")
      ran "$progdir" "$cmd" "x = 64" ;;
    *)
      fail "README.md shows a command this test has no rule for (run it or say why not): \$ $cmd" ;;
  esac
done
echo "ok: README.md's ${#commands[@]} commands: each ran as shown or was checked (above)"
