# Sourced on a GPU host (from the repository root) before running dashi's binaries: unpacks the
# Debian packages carried in .gl/ and exports the loader's environment.
#
# .gl/ holds exactly these (download once, on any machine, from the repository root):
#   mkdir -p .gl /tmp/amd64/partial; o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64
#   -oDir::State::Lists=/tmp/amd64'; apt-get $o update; (cd .gl && apt-get $o download libvulkan1
#   libglvnd0 libegl1 vulkan-validationlayers libpng16-16)
#
# Why these: the Vulkan loader (libvulkan1); the NVIDIA ICD (libGLX_nvidia.so.0) needs GLVND's
# libGLdispatch (libglvnd0) and libEGL (libegl1) — measured on a fresh H100 image (driver
# 580.159.04) by tools/gpu/probe_loader_set.sh: every subset without libvulkan1, libglvnd0 or
# libegl1 fails (VK_ERROR_INCOMPATIBLE_DRIVER), libvulkan1 + libglvnd0 + libegl1 passes, and
# libopengl0, libgl1, libglx0, libgles2 and __EGL_VENDOR_LIBRARY_FILENAMES are not needed.
dl=/opt/dashi-deps
mkdir -p "$dl"
for f in .gl/*.deb; do
  case "$f" in
    *libvulkan1_*) dpkg -x "$f" / ;;   # the loader where every binary finds it
    *) dpkg -x "$f" "$dl" ;;           # GLVND, EGL, the validation layer, libpng
  esac
done
ldconfig
for p in libvulkan1 libglvnd0 libegl1; do
  ls .gl/${p}_*.deb > /dev/null 2>&1 || echo "setup_env.sh: .gl/ has no $p package (see the download command at the top)" >&2
done
export LD_LIBRARY_PATH="$dl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_LAYER_PATH="$dl/usr/share/vulkan/explicit_layer.d"
: "${VK_DRIVER_FILES:=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}"
export VK_DRIVER_FILES
