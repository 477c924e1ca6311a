#!/usr/bin/env bash
# Installs exactly the Debian 12 packages that dashi's build, tests and Vulkan runs need.
# Idempotent: safe to run again; `apt-get update` runs once per invocation.
set -euo pipefail

PACKAGES=(
  # Build system (offline Bazel 4.2.3 and the Java rules it ships)
  bazel-bootstrap bazel-rules-java
  g++ python3
  # Tests
  libgtest-dev libgmock-dev libboost-dev
  # Vulkan: headers, loader, validation layer, lavapipe (CPU driver with fp64), tools
  libvulkan-dev vulkan-tools vulkan-validationlayers mesa-vulkan-drivers
  # Shader compilation (build time) and VkFFT's run-time compiler
  glslang-tools glslang-dev spirv-tools libvkfft-dev
  # CLI and outputs
  libcli11-dev nlohmann-json3-dev libpng-dev
  # Peers measured by the benchmark binaries
  libbenchmark-dev libfftw3-dev libopenblas-dev
  # Fuzzing and sanitizers (libFuzzer)
  clang-14 libclang-rt-14-dev
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: done"
