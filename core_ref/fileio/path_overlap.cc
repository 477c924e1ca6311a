#include "core_ref/fileio/path_overlap.h"

#include <filesystem>
#include <system_error>

namespace dashi {
namespace {

namespace fs = std::filesystem;

fs::path Canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  if (ec) p = fs::absolute(path, ec).lexically_normal();
  // "a/b/" ends in an empty element: drop it, so "a/b/" and "a/b" compare equal.
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

// Whether `outer` is a proper prefix of `inner`, element by element.
bool StrictlyInside(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (i == inner.end() || *i != *o) return false;
  }
  return i != inner.end();
}

}  // namespace

std::string CanonicalPath(const std::string& path) { return Canonical(path).string(); }

PathOverlap ComparePaths(const std::string& a, const std::string& b) {
  const fs::path ca = Canonical(a), cb = Canonical(b);
  if (ca == cb) return PathOverlap::kSame;
  if (StrictlyInside(ca, cb)) return PathOverlap::kInside;
  if (StrictlyInside(cb, ca)) return PathOverlap::kContains;
  return PathOverlap::kNone;
}

Status RefuseOverlap(const std::string& out, const std::string& out_what, const std::string& in,
                     const std::string& in_what) {
  const char* relation = nullptr;
  switch (ComparePaths(out, in)) {
    case PathOverlap::kNone:
      return OkStatus();
    case PathOverlap::kSame:
      relation = " is ";
      break;
    case PathOverlap::kInside:
      relation = " is inside ";
      break;
    case PathOverlap::kContains:
      relation = " contains ";
      break;
  }
  return InvalidArgumentError(out_what + " " + out + relation + in_what + " " + in +
                              " (both resolve to " + CanonicalPath(out) + " and " +
                              CanonicalPath(in) +
                              "): writing the output would change that input; choose an output "
                              "outside every input");
}

}  // namespace dashi
