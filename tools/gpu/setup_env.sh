# Sourced on a GPU host (from the repository root) before running dashi's binaries: unpacks the
# Debian packages carried in .gl/ (the Vulkan loader where the NVIDIA ICD expects it; the
# validation layer and libpng under /opt/dashi-deps) and exports the loader's environment.
dl=/opt/dashi-deps
mkdir -p "$dl"
for f in .gl/*.deb; do
  case "$f" in
    *libvulkan1_*) dpkg -x "$f" / ;;   # the loader goes where the ICD expects it
    *) dpkg -x "$f" "$dl" ;;
  esac
done
ldconfig
export LD_LIBRARY_PATH="$dl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_LAYER_PATH="$dl/usr/share/vulkan/explicit_layer.d"
: "${VK_DRIVER_FILES:=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}"
export VK_DRIVER_FILES
