#include "tools/strict_json.h"

#include <cstring>
#include <optional>
#include <set>
#include <vector>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/input_file.h"
#include "json_input/json_input.h"

namespace dashi::tools {
namespace {

// A SAX pass that stops at the first key an object already holds.
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

}  // namespace

StatusOr<nlohmann::json> ParseStrictJson(std::span<const uint8_t> bytes, const std::string& what) {
  if (const void* nul = std::memchr(bytes.data(), 0, bytes.size()); nul != nullptr) {
    const auto offset = static_cast<const uint8_t*>(nul) - bytes.data();
    return InvalidArgumentError(what + ": a NUL byte at offset " + std::to_string(offset) +
                                " (JSON text holds none; a file cut short or padded?)");
  }
  // Size, nesting and syntax first: the SAX pass below then walks a valid, bounded document.
  DASHI_ASSIGN_OR_RETURN(nlohmann::json j, ParseJsonInput(bytes, what));
  DuplicateKeyFinder finder;
  nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &finder,
                            nlohmann::json::input_format_t::json, /*strict=*/true);
  if (finder.duplicate.has_value()) {
    return InvalidArgumentError(what + ": key \"" + *finder.duplicate +
                                "\" appears twice in one object (which one counts is ambiguous)");
  }
  return j;
}

StatusOr<nlohmann::json> ReadStrictJson(const std::string& path) {
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
  return ParseStrictJson(bytes, path);
}

}  // namespace dashi::tools
