#include "tools/dataset/dataset_verify.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/path_overlap.h"
#include "core_ref/prng/prng.h"
#include "tools/dataset/dataset_item.h"
#include "tools/dataset/dataset_manifest.h"
#include "tools/dataset/dataset_spec.h"

namespace dashi::tools {
namespace {

namespace fs = std::filesystem;

// Empty when the two files hold the same bytes, else what differs.
std::string CompareFiles(const std::string& a, const std::string& b) {
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  if (!fa) return a + ": cannot be read";
  if (!fb) return b + ": missing from the dataset";
  std::vector<char> ba(1 << 16), bb(1 << 16);
  int64_t offset = 0;
  while (true) {
    fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
    fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
    const std::streamsize na = fa.gcount(), nb = fb.gcount();
    for (std::streamsize i = 0; i < std::min(na, nb); ++i) {
      if (ba[i] != bb[i]) {
        return b + ": differs from its regeneration at byte " + std::to_string(offset + i);
      }
    }
    if (na != nb) return b + ": differs in length from its regeneration";
    if (na == 0) return "";
    offset += na;
  }
}

// Regenerates `item` in a scratch directory and compares every file with the stored one.
std::vector<std::string> RegenerateAndCompare(const DatasetSpec& spec, const DatasetItem& item,
                                              const std::string& item_dir) {
  std::string tmpl = (fs::temp_directory_path() / "dashi-dataset-verify-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return {tmpl + ": cannot create a scratch directory"};
  std::vector<std::string> problems;
  StatusOr<std::string> h = GenerateItem(spec, item, tmpl);
  if (!h.ok()) {
    problems.push_back(item.id + ": regeneration failed: " + h.status().ToString());
  } else {
    std::set<std::string> names;
    std::error_code ec;
    for (const fs::path& d : {fs::path(tmpl) / item.id, fs::path(item_dir)}) {
      for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
        names.insert(it->path().filename().string());
      }
    }
    for (const std::string& name : names) {
      std::string diff = CompareFiles(tmpl + "/" + item.id + "/" + name, item_dir + "/" + name);
      if (!diff.empty()) problems.push_back(diff);
    }
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  return problems;
}

}  // namespace

StatusOr<VerifyReport> VerifyDataset(const VerifyOptions& o) {
  DASHI_ASSIGN_OR_RETURN(DatasetSpec spec, ReadDatasetDirSpec(o.dir));
  DASHI_ASSIGN_OR_RETURN(DatasetManifest m, ReadDatasetManifest(o.dir));
  const std::string manifest_path = o.dir + "/" + kDatasetManifestName;
  if (m.spec_blake2b128 != spec.blake2b128) {
    return DataLossError(manifest_path + ": spec_blake2b128 " + m.spec_blake2b128 +
                         " is not the hash of spec.json (" + spec.blake2b128 + ")");
  }
  VerifyReport r;
  for (const char* name : {kDatasetSpecName, kDatasetManifestName, kDatasetItemsDir}) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(o.dir + "/" + name, ec))) {
      r.problems.push_back(o.dir + "/" + name +
                           ": is a symbolic link (a dataset holds its own "
                           "files, not links to files elsewhere)");
    }
  }
  std::map<std::string, const DatasetItem*> expected;
  for (const DatasetItem& item : spec.items) {
    if (m.shard.Holds(item.index)) expected[item.id] = &item;
  }
  const std::string items_dir = o.dir + "/" + kDatasetItemsDir;
  std::set<std::string> seen;
  std::vector<const DatasetItem*> listed;
  for (const ManifestEntry& e : m.items) {
    auto it = expected.find(e.id);
    if (!seen.insert(e.id).second) {
      r.problems.push_back(manifest_path + ": item " + e.id + " is listed twice (duplicate)");
      continue;
    }
    if (it == expected.end() || it->second->index != e.index) {
      r.problems.push_back(manifest_path + ": item " + e.id + " (index " + std::to_string(e.index) +
                           ") is not an item of this spec and shard "
                           "(extra)");
      continue;
    }
    ++r.items;
    listed.push_back(it->second);
    StatusOr<std::string> h = VerifyItem(spec, *it->second, items_dir + "/" + e.id);
    if (!h.ok()) {
      r.problems.push_back(h.status().ToString());
    } else if (*h != e.item_json_blake2b128) {
      r.problems.push_back(items_dir + "/" + e.id + "/item.json: BLAKE2b-128 " + *h +
                           " != " + e.item_json_blake2b128 + " listed in " + manifest_path);
    }
  }
  for (const auto& [id, item] : expected) {
    if (seen.count(id) == 0) {
      r.problems.push_back(manifest_path + ": item " + id + " (index " +
                           std::to_string(item->index) + ") of the spec is missing");
    }
  }
  std::error_code ec;
  for (fs::directory_iterator it(items_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (expected.count(name) == 0) {
      r.problems.push_back(items_dir + "/" + name +
                           ": not an item of this spec and shard (extra, or left by a killed run)");
    }
  }
  if (ec) r.problems.push_back(items_dir + ": cannot list: " + ec.message());
  if (o.regenerate > 0 && !listed.empty()) {
    // The first K of a Fisher-Yates shuffle seeded by --seed: the same items everywhere.
    Xoshiro256ss rng(o.seed);
    const size_t k = std::min<size_t>(static_cast<size_t>(o.regenerate), listed.size());
    for (size_t i = 0; i < k; ++i) {
      const size_t j = i + static_cast<size_t>(rng.NextBelow(listed.size() - i));
      std::swap(listed[i], listed[j]);
      std::vector<std::string> diff =
          RegenerateAndCompare(spec, *listed[i], items_dir + "/" + listed[i]->id);
      if (diff.empty()) ++r.regenerated;
      r.problems.insert(r.problems.end(), diff.begin(), diff.end());
    }
  }
  return r;
}

Status MergeDatasets(const std::string& out, const std::vector<std::string>& shard_dirs) {
  if (shard_dirs.empty()) return InvalidArgumentError("merge: no shard directories given");
  // Before anything is read or written: OUT must not be, hold or lie inside a shard, nor lie
  // inside any other dataset (it would become an extra item there).
  for (const std::string& dir : shard_dirs) {
    DASHI_RETURN_IF_ERROR(RefuseOverlap(out, "merge OUT", dir, "shard directory"));
  }
  DASHI_RETURN_IF_ERROR(RefuseOutputInsideDataset(out, "merge OUT"));
  std::error_code ec;
  if (fs::exists(out, ec) && !(fs::is_directory(out, ec) && fs::is_empty(out, ec))) {
    return FailedPreconditionError(out + ": exists and is not an empty directory");
  }
  std::vector<DatasetManifest> manifests;
  std::string spec_text;
  std::vector<bool> have;
  for (const std::string& dir : shard_dirs) {
    DASHI_ASSIGN_OR_RETURN(DatasetSpec spec, ReadDatasetDirSpec(dir));
    DASHI_ASSIGN_OR_RETURN(VerifyReport r, VerifyDataset({dir, 0, 1}));
    if (!r.problems.empty()) {
      return DataLossError(dir + ": does not verify (" + std::to_string(r.problems.size()) +
                           " problems; first: " + r.problems.front() + ")");
    }
    DASHI_ASSIGN_OR_RETURN(DatasetManifest m, ReadDatasetManifest(dir));
    if (spec_text.empty()) {
      spec_text = spec.CanonicalSpecText();
      have.assign(static_cast<size_t>(m.shard.count), false);
    } else if (spec.CanonicalSpecText() != spec_text) {
      return FailedPreconditionError(dir + ": a shard of another spec (" + spec.blake2b128 +
                                     ") than " + shard_dirs.front());
    }
    if (static_cast<size_t>(m.shard.count) != have.size()) {
      return FailedPreconditionError(
          dir + ": shard " + std::to_string(m.shard.index) + "/" + std::to_string(m.shard.count) +
          " does not match " + std::to_string(have.size()) + " shards of " + shard_dirs.front());
    }
    if (have[static_cast<size_t>(m.shard.index)]) {
      return FailedPreconditionError(dir + ": shard " + std::to_string(m.shard.index) +
                                     " is given twice");
    }
    have[static_cast<size_t>(m.shard.index)] = true;
    manifests.push_back(std::move(m));
  }
  for (size_t s = 0; s < have.size(); ++s) {
    if (!have[s]) {
      return FailedPreconditionError("merge: shard " + std::to_string(s) + "/" +
                                     std::to_string(have.size()) + " is missing");
    }
  }
  fs::create_directories(fs::path(out) / kDatasetItemsDir, ec);
  if (ec) return UnavailableError(out + ": cannot create: " + ec.message());
  DASHI_RETURN_IF_ERROR(WriteFileAtomically(out + "/" + kDatasetSpecName, spec_text));
  DatasetManifest merged{manifests.front().spec_blake2b128, ShardSel{0, 1}, {}};
  for (size_t s = 0; s < manifests.size(); ++s) {
    for (const ManifestEntry& e : manifests[s].items) {
      // Copied under a hidden name, then renamed: an item appears whole or not at all.
      const fs::path from = fs::path(shard_dirs[s]) / kDatasetItemsDir / e.id;
      const fs::path tmp = fs::path(out) / kDatasetItemsDir / ("." + e.id + ".merge-partial");
      fs::remove_all(tmp, ec);
      fs::copy(from, tmp, fs::copy_options::recursive, ec);
      if (!ec) fs::rename(tmp, fs::path(out) / kDatasetItemsDir / e.id, ec);
      if (ec) return UnavailableError(tmp.string() + ": cannot copy the item: " + ec.message());
      merged.items.push_back(e);
    }
  }
  std::sort(merged.items.begin(), merged.items.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.index < b.index; });
  return WriteDatasetManifest(out, merged);
}

}  // namespace dashi::tools
