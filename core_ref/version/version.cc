#include "core_ref/version/version.h"

namespace dashi {

const char* CompilerVersion() {
#if defined(__clang__)
  // __clang_version__ is e.g. "14.0.6 " (sometimes with a trailing space or a vendor suffix).
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown compiler";
#endif
}

}  // namespace dashi
