// The provenance block every output of the `dashi` commands carries: which backend was requested
// and which one ran, on what device and driver, the reference version and the compiler that
// built the binary.
//
//   j["provenance"] = ReferenceProvenance("ref");
//   // {"backend_requested": "ref", "backend_used": "ref", "compiler": "gcc 12.2.0", ...}
#ifndef DASHI_BACKEND_PROVENANCE_H_
#define DASHI_BACKEND_PROVENANCE_H_

#include <string_view>

#include <nlohmann/json.hpp>

namespace dashi::backend {

nlohmann::json Provenance(std::string_view backend_requested, std::string_view backend_used,
                          std::string_view device, std::string_view driver);

// Provenance of work done on the fp64 CPU reference (backend_requested may still be "vulkan":
// the LES, encoding and fit of `dashi run --backend vulkan` run on the reference).
nlohmann::json ReferenceProvenance(std::string_view backend_requested);

}  // namespace dashi::backend

#endif  // DASHI_BACKEND_PROVENANCE_H_
