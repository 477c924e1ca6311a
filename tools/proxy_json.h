// proxy.json: the proxy encoding's parameters and anchor modes, enough to rebuild the ProxySpec
// (and so to encode and decode) without the frame the anchors were chosen from.
#ifndef DASHI_TOOLS_PROXY_JSON_H_
#define DASHI_TOOLS_PROXY_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

#include "core_ref/proxy/proxy_encoder.h"

namespace dashi::tools {

nlohmann::json ProxySpecJson(const ProxySpec& spec);
// Errors name `path` and the missing or malformed field.
StatusOr<ProxySpec> ProxySpecFromJson(const nlohmann::json& j, const std::string& path);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_PROXY_JSON_H_
