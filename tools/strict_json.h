// JSON files read by the CLI held to what a JSON writer produces, on top of json_input's caps and
// typed fields: no NUL byte (nlohmann stops reading at one, so `{...}\0anything` parsed as the
// part before it) and no object with a key twice (nlohmann silently keeps the last value, so two
// readers could see two different records). Errors name the input and say what was found.
//
//   DASHI_ASSIGN_OR_RETURN(nlohmann::json j, ReadStrictJson("run/chain.json"));
#ifndef DASHI_TOOLS_STRICT_JSON_H_
#define DASHI_TOOLS_STRICT_JSON_H_

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "core_ref/status/status.h"

namespace dashi::tools {

// ParseJsonInput (json_input/json_input.h), then INVALID_ARGUMENT naming `what` for a NUL byte
// (with its offset) or a key repeated within one object (with the key).
StatusOr<nlohmann::json> ParseStrictJson(std::span<const uint8_t> bytes, const std::string& what);
// The same for a file, its size checked before it is read (NOT_FOUND when it does not exist).
StatusOr<nlohmann::json> ReadStrictJson(const std::string& path);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_STRICT_JSON_H_
