#include "conformance/framework/golden_input.h"

#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

#include "build_id/build_ids.h"
#include "core_ref/blake2b/blake2b.h"
#include "core_ref/fileio/atomic_file.h"
#include "json_input/json_input.h"

namespace dashi::conformance {

std::string GoldenDir() {
  const char* env = std::getenv("DASHI_GOLDEN_DIR");
  return (env != nullptr && env[0] != '\0') ? std::string(env) : std::string("golden");
}

StatusOr<GoldenEntry> FindGoldenEntry(const std::string& dir, const std::string& name,
                                      const std::string& want_manifest_hash) {
  const std::string path = dir + "/manifest.json";
  StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  if (!bytes.ok()) {
    return Status(bytes.status().code(), "golden manifest " + path +
                                             " unreadable (point `dashi conform --golden-dir`, or "
                                             "DASHI_GOLDEN_DIR for the test binaries, at the "
                                             "golden set): " +
                                             bytes.status().message());
  }
  const std::string got = ToHex(Blake2b128(bytes->data(), bytes->size()));
  if (got != want_manifest_hash) {
    return FailedPreconditionError("golden manifest " + path + " has BLAKE2b-128 " + got +
                                   ", but this binary's suite was built with " +
                                   want_manifest_hash +
                                   ": point `dashi conform --golden-dir` (DASHI_GOLDEN_DIR for "
                                   "the test binaries) at the golden set it was built from");
  }
  StatusOr<nlohmann::json> parsed = ParseJsonInput(*bytes, "golden manifest " + path);
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& m = *parsed;
  if (!m.is_object() || !m.contains("arrays") || !m["arrays"].is_array()) {
    return InvalidArgumentError("golden manifest " + path + " has no \"arrays\" list");
  }
  for (const nlohmann::json& e : m["arrays"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() ||
        e["name"].get<std::string>() != name) {
      continue;
    }
    GoldenEntry entry;
    const bool typed = e.contains("file") && e["file"].is_string() && e.contains("dtype") &&
                       e["dtype"].is_string() && e.contains("blake2b_128") &&
                       e["blake2b_128"].is_string() && e.contains("shape") &&
                       e["shape"].is_array();
    if (typed) {
      entry.file = e["file"].get<std::string>();
      entry.dtype = e["dtype"].get<std::string>();
      entry.blake2b_128 = e["blake2b_128"].get<std::string>();
      for (const nlohmann::json& d : e["shape"]) {
        if (!d.is_number_integer()) {
          entry.shape.clear();
          return InvalidArgumentError("golden manifest " + path + ": entry " + name +
                                      " has a shape that is not a list of integers");
        }
        entry.shape.push_back(d.get<int64_t>());
      }
    }
    if (!typed || entry.file.empty() || entry.file.find('/') != std::string::npos) {
      return InvalidArgumentError("golden manifest " + path + ": entry " + name +
                                  " lacks a plain file name, dtype, shape or blake2b_128");
    }
    return entry;
  }
  return NotFoundError("golden array " + name + " is not listed in " + path);
}

StatusOr<NpyArray> ReadGolden(const std::string& name, const std::vector<int64_t>& shape) {
  const std::string dir = GoldenDir();
  StatusOr<GoldenEntry> entry = FindGoldenEntry(dir, name, build_id::kGoldenManifestHash);
  if (!entry.ok()) return entry.status();
  const std::string path = dir + "/" + entry->file;
  StatusOr<NpyArray> a = ReadNpy(path);
  if (!a.ok()) {
    return Status(a.status().code(), "golden array " + name +
                                         " unreadable (point `dashi conform --golden-dir`, or "
                                         "DASHI_GOLDEN_DIR for the test binaries, at the "
                                         "golden set): " +
                                         a.status().message());
  }
  const std::string got = ToHex(Blake2b128(a->data.data(), a->data.size()));
  const std::string dtype(NpyDescr(a->dtype));
  if (got != entry->blake2b_128 || dtype != entry->dtype || a->shape != entry->shape) {
    return FailedPreconditionError(
        "golden array " + path + " has BLAKE2b-128 " + got + ", dtype " + dtype + ", shape " +
        NpyShapeString(a->shape) + "; its manifest entry says " + entry->blake2b_128 + ", " +
        entry->dtype + ", " + NpyShapeString(entry->shape));
  }
  if (!shape.empty() && a->shape != shape) {
    return InvalidArgumentError("golden " + name + " has shape " + NpyShapeString(a->shape) +
                                ", expected " + NpyShapeString(shape));
  }
  return a;
}

}  // namespace dashi::conformance
