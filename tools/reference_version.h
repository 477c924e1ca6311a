// The reference version recorded in every output (metrics, golden manifests). Bump it whenever a
// change alters any byte of a reference result.
#ifndef DASHI_TOOLS_REFERENCE_VERSION_H_
#define DASHI_TOOLS_REFERENCE_VERSION_H_

namespace dashi::tools {

inline constexpr char kReferenceVersion[] = "dashi-ref 0.2.0";

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_REFERENCE_VERSION_H_
