// The one way dashi reads JSON from outside (proxy.json, golden manifests, certification records,
// chain files, dataset specs and manifests): a size cap, no NUL byte and a nesting cap checked on
// the bytes before parsing (nor a \u0000 escape), parsing without exceptions, no key twice in one object, and typed
// field accessors that return a Status naming the input, the field and what
// was found instead ("…: field \"format\" is a number, expected a string"). No nlohmann exception
// can escape a reader built on these.
//
//   DASHI_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonInput(path));
//   DASHI_ASSIGN_OR_RETURN(int64_t n, IntField(j, "n", path));
#ifndef DASHI_JSON_INPUT_JSON_INPUT_H_
#define DASHI_JSON_INPUT_JSON_INPUT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core_ref/status/status.h"

namespace dashi {

inline constexpr int64_t kJsonInputMaxBytes = int64_t{64} << 20;  // 64 MiB
inline constexpr int kJsonInputMaxDepth = 64;                     // nested arrays/objects

// `what` names the input in messages (usually its path). INVALID_ARGUMENT for more than
// kJsonInputMaxBytes, a NUL byte or a \u0000 escape in a string (with its offset), nesting deeper than kJsonInputMaxDepth, text
// that is not JSON, or a key repeated within one object (with the key).
StatusOr<nlohmann::json> ParseJsonInput(std::span<const uint8_t> bytes, const std::string& what);
// Checks the file's size before reading it (InputFile: regular files only).
StatusOr<nlohmann::json> ReadJsonInput(const std::string& path);

// "an object", "an array", "a string", "an integer", "a number", "a boolean", "null".
const char* JsonTypeName(const nlohmann::json& j);

// Fields of an object; `what` names the input. A missing key or a value of another type is
// INVALID_ARGUMENT. IntField also refuses values outside [lo, hi].
StatusOr<std::string> StringField(const nlohmann::json& obj, std::string_view key,
                                  const std::string& what);
StatusOr<int64_t> IntField(const nlohmann::json& obj, std::string_view key, const std::string& what,
                           int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);
StatusOr<uint64_t> UintField(const nlohmann::json& obj, std::string_view key,
                             const std::string& what);
StatusOr<const nlohmann::json*> ArrayField(const nlohmann::json& obj, std::string_view key,
                                           const std::string& what);
StatusOr<const nlohmann::json*> ObjectField(const nlohmann::json& obj, std::string_view key,
                                            const std::string& what);

}  // namespace dashi

#endif  // DASHI_JSON_INPUT_JSON_INPUT_H_
