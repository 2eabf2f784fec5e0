#!/usr/bin/env bash
# Tries a Gradescope package the way Gradescope runs it, on a machine that has never seen SyncLab:
# a fresh, minimal Debian 12 root filesystem (debootstrap from Debian's package archive), with only
# the CUDA toolkit brought in from this machine (mounted read-only: the package's setup.sh would
# otherwise fetch it from NVIDIA's repository). In that root, as root, setup.sh installs the Debian
# packages and builds the grader; then run_autograder grades five submissions, each in the
# /autograder layout (the grader runs the submission's code as the unprivileged user nobody):
#   reference      the reference solutions: full marks
#   skeleton       the untouched student files: 0
#   wrong          a wrong solution from tests/labs/wrong: fewer points than the reference
#   no-compile     a file that does not compile: 0, with the compiler's message in results.json
#   hang           a kernel that never ends: the grader's time limit stops it, the other cases count
#
#   tests/grader/fresh_root.sh [--lab 01] [--keep DIR] [--mirror URL]
#     --lab     the lab whose package is tried (default 01; its wrong fixtures name the "wrong" case)
#     --keep    build the root in DIR and leave it there (default: a temporary directory, removed)
#     --mirror  the Debian archive (default http://deb.debian.org/debian)
#
# Needs root (debootstrap, chroot, mounts) and network to the Debian archive; installs debootstrap
# through scripts/bootstrap when it is missing. It takes 20-30 minutes on 2 cores (the root's build
# has no compiler cache), so it is not part of ./synclab test: run it before a term starts, or after
# changing setup.sh or the packages. What it does not cover: Gradescope's image is Ubuntu 22.04,
# whose archive this script does not use (docs/instructors.md lists the versions that differ there).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
lab=01 keep="" mirror="http://deb.debian.org/debian"
while [ $# -gt 0 ]; do
  case "$1" in
    --lab) lab="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --mirror) mirror="$2"; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh_root.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "fresh_root.sh: needs root (debootstrap, chroot and mounts)" >&2; exit 2; }
labdir="$(cd "$here/labs" && ls -d "${lab}"-*/ 2>/dev/null | head -n 1)"
labdir="${labdir%/}"
[ -n "$labdir" ] || { echo "fresh_root.sh: no lab $lab in labs/" >&2; exit 2; }
cuda="$(readlink -f "${SYNCLAB_CUDA_HOME:-/usr/local/cuda}")"
[ -x "$cuda/bin/nvcc" ] || { echo "fresh_root.sh: no CUDA toolkit at $cuda" >&2; exit 2; }

start=$SECONDS
step() { printf '== fresh_root.sh [%dm%02ds] %s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*"; }
fail() { echo "fresh_root.sh: FAILED: $*"; exit 1; }

if ! command -v debootstrap >/dev/null; then
  step "installing debootstrap (scripts/bootstrap)"
  SYNCLAB_BOOTSTRAP_EXTRA=debootstrap "$here/scripts/bootstrap" --quiet
fi

if [ -n "$keep" ]; then
  root="$(mkdir -p "$keep" && cd "$keep" && pwd)"
else
  root="$(mktemp -d /var/tmp/synclab-fresh-root.XXXXXX)"
fi
tmp="$(mktemp -d)"
mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; --i)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  rm -rf "$tmp"
  [ -n "$keep" ] || rm -rf --one-file-system "$root"
}
trap cleanup EXIT
mount_in() {  # mount_in [options...] SOURCE TARGET
  local target="${*: -1}"
  mkdir -p "$target"
  mount "$@"
  mounts+=("$target")
}

if [ ! -x "$root/usr/bin/apt-get" ]; then
  step "debootstrap: a minimal Debian 12 (bookworm) in $root from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$tmp/debootstrap.log" 2>&1 ||
    { tail -n 30 "$tmp/debootstrap.log"; fail "debootstrap"; }
fi
step "the root has $(chroot "$root" dpkg-query -W -f='.\n' | wc -l) packages; no compiler: $(chroot "$root" sh -c 'command -v g++ || echo none')"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount_in -t proc proc "$root/proc"
mount_in --bind /dev "$root/dev"
mount_in --bind /dev/pts "$root/dev/pts"
# Only the CUDA toolkit comes from this machine (read-only).
mount_in --bind "$cuda" "$root/opt/cuda"
mount -o remount,bind,ro "$root/opt/cuda"
ln -sfn /opt/cuda "$root/usr/local/cuda"

step "gradescope-package --lab $lab (on this machine)"
"$here/synclab" gradescope-package "$tmp/lab.zip" --lab "$lab" >"$tmp/package.log" 2>&1 ||
  { cat "$tmp/package.log"; fail "gradescope-package"; }
ag="$root/autograder"
rm -rf "$ag"
mkdir -p "$ag/source" "$ag/submission" "$ag/results"
(cd "$ag/source" && cmake -E tar xf "$tmp/lab.zip") || fail "the zip does not unpack"
chmod 755 "$ag" "$ag/source"

step "setup.sh in the root, as Gradescope runs it (root, cwd /autograder/source)"
if ! chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  bash -c 'cd /autograder/source && ./setup.sh' >"$tmp/setup.log" 2>&1; then
  tail -n 60 "$tmp/setup.log"
  fail "setup.sh"
fi
grep '^== setup.sh' "$tmp/setup.log" | sed 's/^/   /'
for d in solutions hidden tests/labs/wrong; do
  [ -e "$ag/source/$d" ] || continue
  [ -n "$(find "$ag/source/$d" -perm /o+r -print -quit)" ] && fail "$d is readable by other users after setup.sh"
done
step "versions in the root: $(chroot "$root" sh -c 'g++ --version | head -n 1; cmake --version | head -n 1' | tr '\n' ';')"

ref_score=""
grade() {  # grade NAME CHECK: run_autograder in the root on what is in submission/
  local name="$1" check="$2"
  echo '{"score": 1000, "tests": []}' >"$ag/results/results.json"  # planted: must be replaced
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    /autograder/source/run_autograder >"$tmp/$name.log" 2>&1 || true
  cp "$ag/results/results.json" "$tmp/$name.json"
  python3 - "$tmp/$name.json" "$name" "$check" "${ref_score:-0}" <<'PY' || { tail -n 30 "$tmp/$name.log"; fail "$name"; }
import json, sys
path, name, check, ref = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
j = json.load(open(path))
tests = j.get("tests", [])
total = sum(t.get("max_score", 0) for t in tests)
score = j["score"]
text = json.dumps(j)
ok = {
    "full": tests and score == total,
    "zero": score == 0 and bool(tests),
    "fewer": 0 < score < ref,
    "zero-compiler": score == 0 and "error" in text,
    "some-timeout": score < ref and ("time limit" in text or "timed out" in text or "hang" in text),
}[check]
assert score != 1000, f"{name}: results.json was not replaced"
assert ok, f"{name}: score {score} of {total} does not satisfy '{check}'"
print(f"   ok: {name}: {score} of {total} ({check})")
PY
}
sol="$here/solutions/$labdir"
sub="$ag/submission"
# Gradescope's metadata of the submission: the submitter's email becomes the student id.
printf '{"id": 1, "users": [{"email": "ada@example.edu", "id": 7, "name": "Ada"}], "assignment": {"id": 3}}\n' \
  >"$ag/submission_metadata.json"
step "run_autograder: reference"
rm -rf "${sub:?}"/* && cp "$sol"/*.cu "$sub/"
# (and the find-the-bug answer of the program the submitter's id draws)
"$here/tests/grader/findbug_answer.sh" "$here/build/bin/synclab-grade" "${labdir:0:2}" ada@example.edu "$sub" ||
  fail "no find-the-bug answer for the reference"
grade reference full
grep -q "Student id: 'ada@example.edu'" "$tmp/reference.json" || fail "the submitter's email was not the student id"
echo "   ok: graded with the submitter's email as the student id"
ref_score="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["score"])' "$tmp/reference.json")"
step "run_autograder: skeleton"
rm -rf "${sub:?}"/* && cp "$here/labs/$labdir"/*.cu "$sub/"
grade skeleton zero
wrong="$(ls "$here/tests/labs/wrong/$labdir"/*.cu 2>/dev/null | head -n 1)"
[ -n "$wrong" ] || fail "no wrong solution in tests/labs/wrong/$labdir"
target="$(sed -n 's/^\/\/ *WRONG-REPLACES: *//p' "$wrong" | head -n 1)"
[ -n "$target" ] || target="$(basename "$wrong" | sed 's/_.*//').cu"
step "run_autograder: wrong ($(basename "$wrong") as $target)"
rm -rf "${sub:?}"/* && cp "$sol"/*.cu "$sub/" && cp "$wrong" "$sub/$target"
grade wrong fewer
first="$(ls "$sol"/*.cu | head -n 1)"
step "run_autograder: no-compile ($(basename "$first") with a line that is not C++)"
rm -rf "${sub:?}"/* && cp "$sol"/*.cu "$sub/" && echo "this line is not C++" >>"$sub/$(basename "$first")"
grade no-compile zero-compiler
step "run_autograder: hang (every kernel of $(basename "$first") spins first)"
rm -rf "${sub:?}"/* && cp "$sol"/*.cu "$sub/"
python3 - "$sub/$(basename "$first")" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
# The first statement of every __global__ function's body becomes a loop that never ends.
s2, n = re.subn(r"(__global__[^{;]*\{)", r"\1 for (volatile int spin = 1; spin;) {} ", s)
assert n > 0, "no __global__ function to make hang"
open(p, "w").write(s2)
PY
grade hang some-timeout
step "done: the package of lab $lab built and graded all five kinds of submission in a fresh root"
