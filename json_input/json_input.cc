#include "json_input/json_input.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/input_file.h"

namespace dashi {
namespace {

// What one pass over the bytes finds before parsing: the deepest nesting of arrays and objects
// (brackets inside strings skipped; the pass stops once it passes `limit`), and the offset of the
// first `\u0000` escape inside a string (-1 if none): it decodes to a NUL character, which no dashi
// record holds and which cut a message quoting the string short.
struct TextScan {
  int deepest = 0;
  int64_t nul_escape_at = -1;
};

TextScan ScanJsonText(std::span<const uint8_t> bytes, int limit) {
  static constexpr char kNulEscape[] = "u0000";
  TextScan scan;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t c = bytes[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
        if (scan.nul_escape_at < 0 && bytes.size() - i >= 5 &&
            std::memcmp(&bytes[i], kNulEscape, 5) == 0) {
          scan.nul_escape_at = static_cast<int64_t>(i) - 1;
        }
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      scan.deepest = std::max(scan.deepest, ++depth);
      if (scan.deepest > limit) return scan;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return scan;
}

// A SAX pass that stops at the first key an object already holds (nlohmann itself keeps the
// last value silently, so two readers could see two different records).
class DuplicateKeyFinder : public nlohmann::json::json_sax_t {
 public:
  std::optional<std::string> duplicate;  // the first key found twice in one object

  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool end_object() override {
    keys_.pop_back();
    return true;
  }
  bool key(string_t& k) override {
    if (keys_.back().insert(k).second) return true;
    duplicate = k;
    return false;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  std::vector<std::set<std::string>> keys_;
};

Status Missing(std::string_view key, const std::string& what) {
  return InvalidArgumentError(what + ": field \"" + std::string(key) + "\" is missing");
}

Status WrongType(const nlohmann::json& v, std::string_view key, const char* want,
                 const std::string& what) {
  return InvalidArgumentError(what + ": field \"" + std::string(key) + "\" is " +
                              JsonTypeName(v) + ", expected " + want);
}

StatusOr<const nlohmann::json*> Field(const nlohmann::json& obj, std::string_view key,
                                      const std::string& what) {
  if (!obj.is_object()) {
    return InvalidArgumentError(what + ": expected a JSON object, found " +
                                std::string(JsonTypeName(obj)));
  }
  const auto it = obj.find(key);
  if (it == obj.end()) return Missing(key, what);
  return &*it;
}

}  // namespace

StatusOr<nlohmann::json> ParseJsonInput(std::span<const uint8_t> bytes, const std::string& what) {
  if (static_cast<int64_t>(bytes.size()) > kJsonInputMaxBytes) {
    return InvalidArgumentError(what + ": " + std::to_string(bytes.size()) +
                                " bytes of JSON, more than the limit of " +
                                std::to_string(kJsonInputMaxBytes));
  }
  // nlohmann stops reading at a NUL byte, so `{...}\0anything` would parse as the part before it.
  if (const void* nul = std::memchr(bytes.data(), 0, bytes.size()); nul != nullptr) {
    const auto offset = static_cast<const uint8_t*>(nul) - bytes.data();
    return InvalidArgumentError(what + ": a NUL byte at offset " + std::to_string(offset) +
                                " (JSON text holds none; a file cut short or padded?)");
  }
  const TextScan scan = ScanJsonText(bytes, kJsonInputMaxDepth);
  if (scan.deepest > kJsonInputMaxDepth) {
    return InvalidArgumentError(what + ": JSON nested deeper than " +
                                std::to_string(kJsonInputMaxDepth) + " levels");
  }
  if (scan.nul_escape_at >= 0) {
    return InvalidArgumentError(what + ": the escape \\u0000 (a NUL character) in a string at "
                                "offset " + std::to_string(scan.nul_escape_at) +
                                " (dashi's JSON holds no NUL character; a damaged or forged file?)");
  }
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgumentError(what + ": not valid JSON");
  // Valid and bounded: a second, SAX pass finds a key repeated within one object.
  DuplicateKeyFinder finder;
  nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &finder,
                            nlohmann::json::input_format_t::json, /*strict=*/true);
  if (finder.duplicate.has_value()) {
    return InvalidArgumentError(what + ": key \"" + *finder.duplicate +
                                "\" appears twice in one object (which one counts is ambiguous)");
  }
  return j;
}

StatusOr<nlohmann::json> ReadJsonInput(const std::string& path) {
  {
    StatusOr<InputFile> f = InputFile::Open(path);
    if (!f.ok()) return Status(f.status().code(), path + ": " + std::string(f.status().message()));
    if (f->size() > kJsonInputMaxBytes) {
      return InvalidArgumentError(path + ": " + std::to_string(f->size()) +
                                  " bytes of JSON, more than the limit of " +
                                  std::to_string(kJsonInputMaxBytes));
    }
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFileBytes(path));
  return ParseJsonInput(bytes, path);
}

const char* JsonTypeName(const nlohmann::json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  if (j.is_string()) return "a string";
  if (j.is_number_integer()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_boolean()) return "a boolean";
  return "null";
}

StatusOr<std::string> StringField(const nlohmann::json& obj, std::string_view key,
                                  const std::string& what) {
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* v, Field(obj, key, what));
  if (!v->is_string()) return WrongType(*v, key, "a string", what);
  return v->get<std::string>();
}

StatusOr<int64_t> IntField(const nlohmann::json& obj, std::string_view key, const std::string& what,
                           int64_t lo, int64_t hi) {
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* v, Field(obj, key, what));
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return InvalidArgumentError(what + ": field \"" + std::string(key) + "\" is out of range");
  }
  if (!v->is_number_integer()) return WrongType(*v, key, "an integer", what);
  const int64_t x = v->get<int64_t>();
  if (x < lo || x > hi) {
    return InvalidArgumentError(what + ": field \"" + std::string(key) + "\" = " +
                                std::to_string(x) + " is outside [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
  }
  return x;
}

StatusOr<uint64_t> UintField(const nlohmann::json& obj, std::string_view key,
                             const std::string& what) {
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* v, Field(obj, key, what));
  if (!v->is_number_unsigned()) {
    if (v->is_number_integer()) {
      return InvalidArgumentError(what + ": field \"" + std::string(key) + "\" is negative");
    }
    return WrongType(*v, key, "a non-negative integer", what);
  }
  return v->get<uint64_t>();
}

StatusOr<const nlohmann::json*> ArrayField(const nlohmann::json& obj, std::string_view key,
                                           const std::string& what) {
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* v, Field(obj, key, what));
  if (!v->is_array()) return WrongType(*v, key, "an array", what);
  return v;
}

StatusOr<const nlohmann::json*> ObjectField(const nlohmann::json& obj, std::string_view key,
                                            const std::string& what) {
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* v, Field(obj, key, what));
  if (!v->is_object()) return WrongType(*v, key, "an object", what);
  return v;
}

}  // namespace dashi
