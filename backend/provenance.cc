#include "backend/provenance.h"

#include "core_ref/version/version.h"

namespace dashi::backend {

nlohmann::json Provenance(std::string_view backend_requested, std::string_view backend_used,
                          std::string_view device, std::string_view driver) {
  return {{"backend_requested", backend_requested},
          {"backend_used", backend_used},
          {"device", device},
          {"driver", driver},
          {"reference_version", kReferenceVersion},
          {"compiler", CompilerVersion()}};
}

nlohmann::json ReferenceProvenance(std::string_view backend_requested) {
  return Provenance(backend_requested, "ref", "cpu (core_ref fp64 reference)", "none");
}

}  // namespace dashi::backend
