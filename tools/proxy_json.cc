#include "tools/proxy_json.h"

#include <vector>

#include "json_input/json_input.h"

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
  DASHI_ASSIGN_OR_RETURN(const std::string format, StringField(j, "format", path));
  if (format != "dashi-proxy/1") {
    return bad("not a dashi proxy spec (format \"" + format + "\", expected \"dashi-proxy/1\")");
  }
  DASHI_ASSIGN_OR_RETURN(const int64_t n, IntField(j, "n", path, 1, 1 << 20));
  DASHI_ASSIGN_OR_RETURN(const int64_t k_lo, IntField(j, "k_lo", path, 0, 1 << 20));
  DASHI_ASSIGN_OR_RETURN(const int64_t k_mid, IntField(j, "k_mid", path, 0, 1 << 20));
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* anchor_list, ArrayField(j, "anchors", path));
  std::vector<Mode> anchors;
  for (const auto& a : *anchor_list) {
    if (!a.is_array() || a.size() != 2 || !a[0].is_number_integer() ||
        !a[1].is_number_integer()) {
      return bad("an anchor is not a pair of integers [kx, ky]");
    }
    anchors.push_back({a[0].get<int64_t>(), a[1].get<int64_t>()});
  }
  StatusOr<ProxySpec> spec = ProxySpecFromAnchors(n, static_cast<int>(k_lo),
                                                  static_cast<int>(k_mid), anchors);
  if (!spec.ok()) return spec.status().WithPrefix(path);
  if (j.contains("dim")) {
    DASHI_ASSIGN_OR_RETURN(const int64_t dim, IntField(j, "dim", path));
    if (dim != spec->dim()) {
      return bad("\"dim\" " + std::to_string(dim) + " does not match the spec's D = " +
                 std::to_string(spec->dim()));
    }
  }
  return spec;
}

}  // namespace dashi::tools
