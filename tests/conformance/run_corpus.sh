#!/usr/bin/env bash
# Builds and runs the conformance corpus with plain nvcc and the CUDA runtime (the GPU backend),
# or with another compiler driver (e.g. synclab-nvcc for the simulator backend) through --nvcc.
#
#   tests/conformance/run_corpus.sh [--nvcc PATH] [--arch sm_XX] [--out DIR] [--jobs N] [NAME...]
#
# A program passes when it exits 0, its last stdout line is "PASS NAME", and, when
# expected_stdout/NAME.txt exists, its whole stdout equals that file. Prints one line per program
# and a summary; exits 1 if any program fails to build or run correctly.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
arch="sm_75"
out="${TMPDIR:-/tmp}/synclab-conformance"
jobs="$(nproc 2>/dev/null || echo 2)"
names=()
while [ $# -gt 0 ]; do
    case "$1" in
        --nvcc) nvcc="$2"; shift 2 ;;
        --arch) arch="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) names+=("$1"); shift ;;
    esac
done
if [ ${#names[@]} -eq 0 ]; then
    while read -r name _flags; do
        case "$name" in ''|'#'*) continue ;; esac
        names+=("$name")
    done < "$here/programs.txt"
fi
mkdir -p "$out"

build() {  # name -> out/name (binary) and out/name.build.log
    local srcs=("$here/$1.cu") flags=()
    # Tag rdc in programs.txt: NAME.cu plus NAME.*.cu, separately compiled and device-linked.
    if grep -Eq "^$1([[:space:]].*)?[[:space:]]rdc([[:space:]]|\$)" "$here/programs.txt"; then
        flags+=(-rdc=true)
        for f in "$here/$1".*.cu; do [ -e "$f" ] && srcs+=("$f"); done
    fi
    "$nvcc" -std=c++17 -lineinfo -arch="$arch" ${flags[@]+"${flags[@]}"} -o "$out/$1" "${srcs[@]}" \
        > "$out/$1.build.log" 2>&1
}
export -f build
export nvcc arch out here
printf '%s\n' "${names[@]}" | xargs -P "$jobs" -I{} bash -c 'build {} || echo "build failed: {}" >> "$out/build-failures.txt"'

pass=0
fail=0
for name in "${names[@]}"; do
    if [ ! -x "$out/$name" ]; then
        echo "BUILD-FAIL $name (see $out/$name.build.log)"
        fail=$((fail + 1))
        continue
    fi
    timeout 300 "$out/$name" > "$out/$name.stdout" 2> "$out/$name.stderr"
    rc=$?
    last="$(tail -n 1 "$out/$name.stdout")"
    ok=1
    [ "$rc" -eq 0 ] || ok=0
    [ "$last" = "PASS $name" ] || ok=0
    if [ -f "$here/expected_stdout/$name.txt" ] && ! cmp -s "$here/expected_stdout/$name.txt" "$out/$name.stdout"; then
        ok=0
        echo "  stdout differs from expected_stdout/$name.txt:"
        diff "$here/expected_stdout/$name.txt" "$out/$name.stdout" | head -20 | sed 's/^/    /'
    fi
    if [ $ok -eq 1 ]; then
        echo "PASS $name"
        pass=$((pass + 1))
    else
        echo "FAIL $name (exit $rc)"
        tail -n 12 "$out/$name.stdout" "$out/$name.stderr" | sed 's/^/    /'
        fail=$((fail + 1))
    fi
done
echo "conformance: $pass passed, $fail failed ($arch)"
[ $fail -eq 0 ]
