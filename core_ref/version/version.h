// What built a result: the reference version (bumped whenever a change alters any byte of a
// reference result; recorded in golden manifests and in every output's provenance) and the
// compiler that built this binary (recorded in provenance beside it; never in golden data, whose
// bytes must not depend on the machine).
//
//   j["reference_version"] = kReferenceVersion;   // "dashi-ref 0.2.0"
//   j["compiler"] = CompilerVersion();            // e.g. "gcc 12.2.0"
#ifndef DASHI_CORE_REF_VERSION_VERSION_H_
#define DASHI_CORE_REF_VERSION_VERSION_H_

namespace dashi {

inline constexpr char kReferenceVersion[] = "dashi-ref 0.2.0";

// "gcc <__VERSION__>", "clang <__clang_version__>" or "unknown compiler", as the compiler that
// built core_ref reports itself.
const char* CompilerVersion();

}  // namespace dashi

#endif  // DASHI_CORE_REF_VERSION_VERSION_H_
