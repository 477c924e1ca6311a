#!/usr/bin/env bash
# Portability proof of the reference (docs/MATH.md §5): the golden set and the default run's hash
# chain must be the same bytes
#   (a) built with g++ and with clang-14 on x86-64,
#   (b) run with glibc's FMA / AVX2 code paths disabled (GLIBC_TUNABLES),
#   (c) cross-built for aarch64 with Debian's g++-aarch64-linux-gnu and run under qemu-aarch64.
# Each build compiles exactly the sources of //tools/portability:portable_reference (listed by
# `bazel query`) with the project's floating-point flags; golden/ is the expectation for the
# golden set, the Bazel build's `portable_reference chain` for the hash chain.
#
#   bash tools/portability/check.sh [--golden-only-on-aarch64] [WORKDIR]
#
# WORKDIR defaults to a temporary directory. The aarch64 hash chain runs the default pipeline
# under emulation (minutes); --golden-only-on-aarch64 skips it there (the golden set still holds
# the 32- and 64-point pipelines' chains). It also checks that math_tables.h and the GLSL port's
# constants are what core_ref/math/gen_tables.py generates.
#
# Needs the Debian packages clang-14, g++-aarch64-linux-gnu and qemu-user (and Bazel, as
# tools/setup.sh installs). Prints one line per comparison and `N passed, N failed`; exits 1 on
# any difference or missing tool.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
aarch64_chain=1
if [[ ${1:-} == --golden-only-on-aarch64 ]]; then
  aarch64_chain=0
  shift
fi
work=${1:-$(mktemp -d /tmp/dashi-portability.XXXXXX)}
mkdir -p "$work"
start=$SECONDS

missing=()
for tool in g++:g++ clang++-14:clang-14 aarch64-linux-gnu-g++:g++-aarch64-linux-gnu \
    qemu-aarch64:qemu-user bazel:bazel-bootstrap; do
  command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
if ((${#missing[@]})); then
  echo "missing tools; install the Debian packages: apt-get install -y ${missing[*]}" >&2
  exit 1
fi

# The sources, exactly as Bazel builds them.
target=//tools/portability:portable_reference
mapfile -t sources < <(bazel query --noshow_progress "kind('source file', deps($target))" \
  2> /dev/null | grep '^//' | sed -e 's|^//||' -e 's|:|/|' | grep '\.cc$')
if ((${#sources[@]} < 20)); then
  echo "bazel query found only ${#sources[@]} sources of $target" >&2
  exit 1
fi
# Header-only system libraries the sources include (nlohmann/json; libpng's header for one
# translation unit that the golden generator does not link), visible to every compiler,
# cross-compilers included, without the rest of the host's /usr/include.
mkdir -p "$work/include"
for h in nlohmann png.h pngconf.h pnglibconf.h; do
  ln -sfn "$(readlink -f "/usr/include/$h")" "$work/include/$h"
done
# The flags of .bazelrc that decide floating-point results.
flags=(-std=c++20 -O2 -ffp-contract=off -fno-fast-math -iquote "$root" -isystem "$work/include")

build() {  # build NAME COMPILER: objects in parallel, an archive, and the link
  local name=$1 cxx=$2 dir=$work/$1
  mkdir -p "$dir/obj"
  # Its own compiles only (the aarch64 runs may be going on in the background): at most nproc
  # at once, each waited for by pid; a failed compile stops the script.
  local src pids=() pid running
  for src in "${sources[@]}"; do
    "$cxx" "${flags[@]}" -c "$src" -o "$dir/obj/$(echo "$src" | tr / _).o" &
    pids+=($!)
    while :; do
      running=0
      for pid in "${pids[@]}"; do kill -0 "$pid" 2> /dev/null && running=$((running + 1)); done
      ((running >= $(nproc))) || break
      sleep 0.2
    done
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  local main="$dir/obj/tools_portability_portable_reference_main.cc.o"
  rm -f "$dir/libref.a"
  find "$dir/obj" -name '*.o' ! -path "$main" -print0 | xargs -0 ar rcs "$dir/libref.a"
  "$cxx" "$main" "$dir/libref.a" -o "$dir/portable_reference"
  echo "built $name with $("$cxx" --version | head -1)  [$((SECONDS - start)) s]"
}

passed=0
failed=0
verdict() {  # verdict OK|FAIL message
  if [[ $1 == OK ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  echo "$1: $2  [$((SECONDS - start)) s]"
}

if python3 core_ref/math/gen_tables.py --check > /dev/null; then
  verdict OK "math_tables.h and shaders/decode/sincospi_f64.glsl match gen_tables.py"
else
  verdict FAIL "$(python3 core_ref/math/gen_tables.py --check)"
fi

compare_golden() {  # compare_golden NAME DIR
  local differing=() f
  for f in golden/*.npy golden/manifest.json; do
    cmp -s "$f" "$2/$(basename "$f")" || differing+=("$(basename "$f")")
  done
  local total=$(ls golden/*.npy | wc -l)
  if ((${#differing[@]} == 0)); then
    verdict OK "$1: golden set byte-identical ($total arrays + manifest.json)"
  else
    verdict FAIL "$1: ${#differing[@]} files differ from golden/: ${differing[*]}"
  fi
}

compare_chain() {  # compare_chain NAME LINK
  if [[ $2 == "$expected_link" ]]; then
    verdict OK "$1: default run's final hash-chain link $2"
  else
    verdict FAIL "$1: final link $2, expected $expected_link"
  fi
}

echo "== the project's build (Bazel) =="
bazel build --noshow_progress "$target" 2> /dev/null
expected_link=$(bazel-bin/tools/portability/portable_reference chain)
echo "expected final link: $expected_link"

# The aarch64 build first: its runs under qemu (minutes, mostly the default run's seven LES
# trajectories) go on in the background while the x86-64 builds and runs of (a) and (b) take the
# cores, and are compared after them.
echo "== (c) aarch64: cross-built, run under qemu-aarch64 (in the background during (a), (b)) =="
build aarch64 aarch64-linux-gnu-g++
readelf -h "$work/aarch64/portable_reference" | grep -q AArch64 || {
  echo "the aarch64 build is not an aarch64 executable" >&2
  exit 1
}
qemu="qemu-aarch64 -L /usr/aarch64-linux-gnu"
# Nothing of an earlier run in WORKDIR may stand in for this one's results.
rm -rf "$work/aarch64/golden" "$work/aarch64/golden.rc" "$work/aarch64/golden.log" \
  "$work/aarch64/chain.rc" "$work/aarch64/chain.log" "$work/aarch64/chain.txt"
# In a process group of its own (set -m), so that the trap below ends the subshell and whichever
# qemu it is running, or about to start, at once.
set -m
(
  rc=0
  $qemu "$work/aarch64/portable_reference" golden "$work/aarch64/golden" \
    > "$work/aarch64/golden.log" 2>&1 || rc=$?
  echo "$rc" > "$work/aarch64/golden.rc"
  if ((aarch64_chain)); then
    rc=0
    $qemu "$work/aarch64/portable_reference" chain > "$work/aarch64/chain.txt" \
      2> "$work/aarch64/chain.log" || rc=$?
    echo "$rc" > "$work/aarch64/chain.rc"
  fi
) < /dev/null &
aarch64_runs=$!
set +m
# A failure below ends the script: the background runs end with it (only while they still run:
# once they have ended, their process group id may belong to someone else).
trap 'if jobs -rp | grep -qx "$aarch64_runs"; then kill -- -"$aarch64_runs" 2> /dev/null; fi' EXIT

echo "== (a) x86-64: g++ and clang-14 =="
build gcc g++
build clang clang++-14
for v in gcc clang; do
  "$work/$v/portable_reference" golden "$work/$v/golden"
  compare_golden "x86-64 $v" "$work/$v/golden"
  compare_chain "x86-64 $v" "$("$work/$v/portable_reference" chain)"
done

echo "== (b) x86-64, glibc's FMA/AVX2 code paths disabled =="
tunables="glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX512F"
GLIBC_TUNABLES=$tunables "$work/gcc/portable_reference" golden "$work/gcc/golden_nofma"
compare_golden "x86-64 g++, GLIBC_TUNABLES=$tunables" "$work/gcc/golden_nofma"
compare_chain "x86-64 g++, GLIBC_TUNABLES=$tunables" \
  "$(GLIBC_TUNABLES=$tunables "$work/gcc/portable_reference" chain)"

echo "== (c) aarch64 under qemu: waiting for the background runs =="
wait "$aarch64_runs" || true
trap - EXIT
if [[ $(cat "$work/aarch64/golden.rc" 2> /dev/null) == 0 ]]; then
  compare_golden "aarch64 g++ (qemu)" "$work/aarch64/golden"
else
  verdict FAIL "aarch64 g++ (qemu): the golden run failed: $(tail -3 "$work/aarch64/golden.log")"
fi
if ((aarch64_chain)); then
  if [[ $(cat "$work/aarch64/chain.rc" 2> /dev/null) == 0 ]]; then
    compare_chain "aarch64 g++ (qemu)" "$(cat "$work/aarch64/chain.txt")"
  else
    verdict FAIL "aarch64 g++ (qemu): the default run failed: $(tail -3 "$work/aarch64/chain.log")"
  fi
else
  echo "(aarch64 default-run chain skipped: --golden-only-on-aarch64)"
fi

echo "portability check took $((SECONDS - start)) s (outputs in $work)"
echo "$passed passed, $failed failed"
((failed == 0))
