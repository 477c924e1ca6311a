#include "tools/cli_numbers.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <utility>

namespace dashi::tools {

std::string CanonicalDecimal(std::string& text, bool is_signed) {
  if (text.empty()) return "an empty value is not a number";
  size_t digits_from = 0;
  if (text[0] == '-') {
    if (!is_signed) return "'" + text + "' is negative; this flag takes a number >= 0";
    digits_from = 1;
  }
  if (digits_from == text.size()) return "'" + text + "' is not a decimal integer";
  for (size_t i = digits_from; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') {
      return "'" + text + "' is not a decimal integer (digits only; no 0x, exponent or sign '+')";
    }
  }
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (is_signed) {
    int64_t v = 0;
    const auto r = std::from_chars(begin, end, v, 10);
    if (r.ec != std::errc() || r.ptr != end) return "'" + text + "' is out of range of a 64-bit integer";
    text = std::to_string(v);
  } else {
    uint64_t v = 0;
    const auto r = std::from_chars(begin, end, v, 10);
    if (r.ec != std::errc() || r.ptr != end) return "'" + text + "' is out of range of a 64-bit integer";
    text = std::to_string(v);
  }
  return {};
}

std::string RealNumberProblem(const std::string& text) {
  if (text.empty()) return "an empty value is not a number";
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  if (is_space(text.front()) || is_space(text.back())) {
    return "'" + text + "' has spaces around the number; give the number alone";
  }
  double v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ptr != end) {
    return "'" + text + "' is not a decimal number (digits with an optional '-', '.' and exponent, "
           "e.g. 0.25 or 1e-3; no 0x or '+')";
  }
  if (r.ec != std::errc()) return "'" + text + "' is out of range of a double";
  return {};
}

std::string NumberText(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string Utf8Problem(const std::string& text) {
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = b[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len != 0 && i + len <= n && !(len == 2 && c < 0xC2) && !(len == 4 && c > 0xF4);
    for (size_t k = 1; ok && k < len; ++k) ok = (b[i + k] & 0xC0) == 0x80;
    if (ok && len == 3) {  // no overlong forms, no surrogates
      ok = !(c == 0xE0 && b[i + 1] < 0xA0) && !(c == 0xED && b[i + 1] >= 0xA0);
    }
    if (ok && len == 4) ok = !(c == 0xF0 && b[i + 1] < 0x90) && !(c == 0xF4 && b[i + 1] >= 0x90);
    if (!ok) {
      return "is not valid UTF-8 (byte " + std::to_string(i) +
             "); dashi records paths and names in JSON, so it takes UTF-8 only";
    }
    i += len;
  }
  return {};
}

std::string EmptyPathProblem(const std::string& text) {
  if (!text.empty()) return {};
  return "an empty path names no file or directory (dashi would read it as / or the current "
         "directory); give the path";
}

CLI::Validator IntegerIn(int64_t lo, int64_t hi) {
  const std::string range = hi == INT64_MAX ? ">= " + std::to_string(lo)
                                            : "in [" + std::to_string(lo) + ", " +
                                                  std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto r = std::from_chars(text.data(), end, v, 10);
        if (r.ec != std::errc() || r.ptr != end || (v >= lo && v <= hi)) return {};
        return "'" + text + "' is out of range; this flag takes a number " + range;
      },
      range, "integer range");
}

CLI::Validator IntAtLeast(int lo) { return IntegerIn(lo, std::numeric_limits<int>::max()); }

CLI::Validator AcceptedBy(std::function<Status(const std::string&)> parse) {
  return CLI::Validator(
      [parse = std::move(parse)](std::string& text) -> std::string {
        const Status st = parse(text);
        return st.ok() ? std::string() : std::string(st.message());
      },
      std::string{}, "accepted by its parser");
}

void AddFlagCheck(CLI::App& cmd, std::function<std::string()> problem) {
  cmd.parse_complete_callback([problem = std::move(problem)] {
    if (std::string p = problem(); !p.empty()) throw CLI::ValidationError(p);
  });
}

void RequireDecimalIntegers(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    std::string type = opt->get_type_name();
    type = type.substr(0, type.find(':'));  // "INT:INT in [1 - 9]" → "INT"
    if (type == "TEXT" || type == "PATH") {
      opt->check(CLI::Validator([](std::string& value) { return Utf8Problem(value); },
                                std::string{}, "utf8"));
      if (type == "PATH") {
        opt->check(CLI::Validator([](std::string& value) { return EmptyPathProblem(value); },
                                  std::string{}, "path"));
      }
      continue;
    }
    if (type == "FLOAT") {
      opt->check(CLI::Validator([](std::string& value) { return RealNumberProblem(value); },
                                std::string{}, "real"));
      continue;
    }
    if (type != "INT" && type != "UINT") continue;
    const bool is_signed = type == "INT";
    opt->transform(CLI::Validator(
        [is_signed](std::string& value) { return CanonicalDecimal(value, is_signed); },
        std::string{}, "decimal"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    RequireDecimalIntegers(*sub);
  }
}

}  // namespace dashi::tools
