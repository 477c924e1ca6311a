#include "tools/proxy_json.h"

#include <vector>

namespace dashi::tools {

nlohmann::json ProxySpecJson(const ProxySpec& spec) {
  nlohmann::json anchors = nlohmann::json::array();
  for (const Mode& m : spec.anchors) anchors.push_back({m.kx, m.ky});
  return {{"format", "dashi-proxy/1"},
          {"n", spec.n},
          {"k_lo", spec.k_lo},
          {"k_mid", spec.k_mid},
          {"dim", spec.dim()},
          {"low_modes", spec.low_modes.size()},
          {"anchors", anchors},
          {"layout",
           "[Re, Im] of low modes (0<|k|<=k_lo), then of anchors, then sqrt(Z_mid), "
           "sqrt(Z_high); modes (kx, ky) with kx>0 or kx=0, ky>0, ordered by (|k|^2, kx, ky)"}};
}

StatusOr<ProxySpec> ProxySpecFromJson(const nlohmann::json& j, const std::string& path) {
  auto bad = [&](const std::string& what) {
    return InvalidArgumentError(path + ": " + what);
  };
  if (!j.is_object() || j.value("format", "") != "dashi-proxy/1") {
    return bad("not a dashi proxy spec (\"format\": \"dashi-proxy/1\" missing)");
  }
  for (const char* key : {"n", "k_lo", "k_mid"}) {
    if (!j.contains(key) || !j[key].is_number_integer()) {
      return bad(std::string("field \"") + key + "\" is missing or not an integer");
    }
  }
  if (!j.contains("anchors") || !j["anchors"].is_array()) {
    return bad("field \"anchors\" is missing or not an array");
  }
  std::vector<Mode> anchors;
  for (const auto& a : j["anchors"]) {
    if (!a.is_array() || a.size() != 2 || !a[0].is_number_integer() ||
        !a[1].is_number_integer()) {
      return bad("an anchor is not a pair of integers [kx, ky]");
    }
    anchors.push_back({a[0].get<int64_t>(), a[1].get<int64_t>()});
  }
  StatusOr<ProxySpec> spec = ProxySpecFromAnchors(j["n"].get<int64_t>(), j["k_lo"].get<int>(),
                                                  j["k_mid"].get<int>(), anchors);
  if (!spec.ok()) return spec.status().WithPrefix(path);
  if (j.contains("dim") && j["dim"].is_number_integer() && j["dim"].get<int64_t>() != spec->dim()) {
    return bad("\"dim\" " + std::to_string(j["dim"].get<int64_t>()) +
               " does not match the spec's D = " + std::to_string(spec->dim()));
  }
  return spec;
}

}  // namespace dashi::tools
