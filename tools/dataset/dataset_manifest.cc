#include "tools/dataset/dataset_manifest.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/path_overlap.h"
#include "json_input/json_input.h"

namespace dashi::tools {

std::string DatasetManifestText(const DatasetManifest& m) {
  nlohmann::json items = nlohmann::json::array();
  for (const ManifestEntry& e : m.items) {
    items.push_back(
        {{"index", e.index}, {"id", e.id}, {"item_json_blake2b128", e.item_json_blake2b128}});
  }
  const nlohmann::json j = {{"format", kDatasetFormat},
                            {"spec_blake2b128", m.spec_blake2b128},
                            {"shard", {{"index", m.shard.index}, {"count", m.shard.count}}},
                            {"item_count", m.items.size()},
                            {"items", items}};
  return j.dump(2) + "\n";
}

Status WriteDatasetManifest(const std::string& dir, const DatasetManifest& m) {
  return WriteFileAtomically(dir + "/" + kDatasetManifestName, DatasetManifestText(m));
}

StatusOr<DatasetManifest> ReadDatasetManifest(const std::string& dir) {
  const std::string path = dir + "/" + kDatasetManifestName;
  StatusOr<nlohmann::json> parsed = ReadJsonInput(path);
  if (!parsed.ok() && parsed.status().code() == StatusCode::kNotFound) {
    return NotFoundError(path +
                         ": missing: the dataset is incomplete (an interrupted or failed "
                         "generation; run `dashi dataset generate` again to resume)");
  }
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return InvalidArgumentError(path + ": not a JSON object");
  DASHI_ASSIGN_OR_RETURN(std::string format, StringField(j, "format", path));
  if (format != kDatasetFormat) {
    return InvalidArgumentError(path + ": format \"" + format + "\" is not \"" + kDatasetFormat +
                                "\"");
  }
  DatasetManifest m;
  DASHI_ASSIGN_OR_RETURN(m.spec_blake2b128, StringField(j, "spec_blake2b128", path));
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* shard, ObjectField(j, "shard", path));
  DASHI_ASSIGN_OR_RETURN(m.shard.count, IntField(*shard, "count", path + ": shard", 1));
  DASHI_ASSIGN_OR_RETURN(m.shard.index,
                         IntField(*shard, "index", path + ": shard", 0, m.shard.count - 1));
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* items, ArrayField(j, "items", path));
  DASHI_ASSIGN_OR_RETURN(int64_t count, IntField(j, "item_count", path, 0));
  if (count != static_cast<int64_t>(items->size())) {
    return InvalidArgumentError(path + ": item_count " + std::to_string(count) + " but " +
                                std::to_string(items->size()) + " items listed");
  }
  for (size_t i = 0; i < items->size(); ++i) {
    const std::string what = path + ": items[" + std::to_string(i) + "]";
    const nlohmann::json& e = (*items)[i];
    if (!e.is_object()) return InvalidArgumentError(what + " is not an object");
    ManifestEntry entry;
    DASHI_ASSIGN_OR_RETURN(entry.index, IntField(e, "index", what, 0));
    DASHI_ASSIGN_OR_RETURN(entry.id, StringField(e, "id", what));
    DASHI_ASSIGN_OR_RETURN(entry.item_json_blake2b128,
                           StringField(e, "item_json_blake2b128", what));
    m.items.push_back(std::move(entry));
  }
  return m;
}

StatusOr<DatasetSpec> ReadDatasetDirSpec(const std::string& dir) {
  const std::string path = dir + "/" + kDatasetSpecName;
  DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFileBytes(path));
  DASHI_ASSIGN_OR_RETURN(nlohmann::json j, ParseJsonInput(bytes, path));
  DASHI_ASSIGN_OR_RETURN(DatasetSpec spec, ParseDatasetSpec(j, path));
  const std::string text = spec.CanonicalSpecText();
  if (std::string(bytes.begin(), bytes.end()) != text) {
    return DataLossError(path + ": not the canonical text of the spec it holds (edited by hand?)");
  }
  return spec;
}

std::string EnclosingDatasetDir(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path canonical = CanonicalPath(path);
  for (fs::path p = canonical.parent_path(); p.has_relative_path(); p = p.parent_path()) {
    std::error_code ec;
    if (fs::is_regular_file(p / kDatasetSpecName, ec) && fs::is_directory(p / kDatasetItemsDir, ec)) {
      return p.string();
    }
  }
  return "";
}

Status RefuseOutputInsideDataset(const std::string& out, const std::string& out_what) {
  const std::string dataset = EnclosingDatasetDir(out);
  if (dataset.empty()) return OkStatus();
  return InvalidArgumentError(out_what + " " + out + " is inside the dataset " + dataset +
                              " (it holds " + kDatasetSpecName + " and " + kDatasetItemsDir +
                              "/): writing there would change that dataset; choose a directory "
                              "outside it");
}

}  // namespace dashi::tools
