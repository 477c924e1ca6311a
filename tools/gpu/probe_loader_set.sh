#!/usr/bin/env bash
# Finds the smallest set of the .gl/ Debian packages with which the NVIDIA Vulkan ICD starts on a
# fresh GPU image. Every probe unpacks only its subset into its own root (nothing goes into /),
# points LD_LIBRARY_PATH at it and runs `dist/dashi devices`; a probe passes when dashi lists an
# NVIDIA device with fp64. Each subset is tried with and without __EGL_VENDOR_LIBRARY_FILENAMES.
#
# Usage (repository root, dist/dashi built here with -c opt, .gl/ holding the .debs):
#   bash tools/gpu/probe_loader_set.sh OUTDIR
set -uo pipefail
out=${1:?usage: probe_loader_set.sh OUTDIR}
mkdir -p "$out"
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
deb() { ls .gl/"$1"_*.deb 2>/dev/null | head -1; }

{
  echo "host: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  echo "system libvulkan: $(ldconfig -p | grep -c libvulkan) entries; libGLdispatch: $(ldconfig -p | grep -c libGLdispatch)"
  echo "ICD: $(cat "$icd" 2>/dev/null | tr -d '\n' | head -c 300)"
} > "$out/host.txt"

png=$(mktemp -d)
dpkg -x "$(deb libpng16-16)" "$png"

probe() {  # name, then package names
  local name=$1; shift
  local root
  root=$(mktemp -d)
  for p in "$@"; do dpkg -x "$(deb "$p")" "$root"; done
  for with_egl in 0 1; do
    local log="$out/probe_${name}_egl${with_egl}.log"
    (
      export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$png/usr/lib/x86_64-linux-gnu"
      export VK_DRIVER_FILES="$icd"
      if [ "$with_egl" = 1 ]; then export __EGL_VENDOR_LIBRARY_FILENAMES="$egl"; fi
      timeout 60 dist/dashi devices
    ) > "$log" 2>&1
    local rc=$?
    local verdict=FAIL
    if [ $rc = 0 ] && grep -qi nvidia "$log" && grep -q "shaderFloat64 yes" "$log"; then verdict=PASS; fi
    printf '%-36s egl_vendor=%s rc=%-3s %s   (%s)\n' "$name" "$with_egl" "$rc" "$verdict" "$*" | tee -a "$out/summary.txt"
  done
  rm -rf "$root"
}

all=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
probe all "${all[@]}"
for drop in "${all[@]}"; do
  keep=()
  for p in "${all[@]}"; do [ "$p" != "$drop" ] && keep+=("$p"); done
  probe "without_$drop" "${keep[@]}"
done
probe vulkan_glvnd libvulkan1 libglvnd0
probe vulkan_glvnd_glx libvulkan1 libglvnd0 libglx0
probe vulkan_glvnd_egl libvulkan1 libglvnd0 libegl1
probe vulkan_only libvulkan1
