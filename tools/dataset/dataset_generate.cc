#include "tools/dataset/dataset_generate.h"

#include <sys/statvfs.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/path_overlap.h"
#include "core_ref/status/checked_arithmetic.h"
#include "tools/dataset/dataset_item.h"
#include "tools/dataset/dataset_lock.h"
#include "tools/dataset/dataset_manifest.h"
#include "tools/human_bytes.h"

namespace dashi::tools {
namespace {

namespace fs = std::filesystem;

std::string ShardText(const ShardSel& s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count);
}

// A dataset of this spec is resumed only as the shard it was generated as: a complete one names
// its shard (and spec hash) in dataset.json; an incomplete one (no dataset.json) must hold no item
// of the spec that this shard does not generate. Anything else is refused naming both, before
// dataset.json or any item is touched.
Status CheckSameShard(const DatasetSpec& spec, const std::string& dir, const ShardSel& shard) {
  StatusOr<DatasetManifest> m = ReadDatasetManifest(dir);
  const std::string manifest = dir + "/" + kDatasetManifestName;
  if (m.ok()) {
    if (m->spec_blake2b128 != spec.blake2b128) {
      return FailedPreconditionError(manifest + " names spec " + m->spec_blake2b128 +
                                     ", this spec is " + spec.blake2b128 +
                                     "; refusing to resume it: use another --out");
    }
    if (m->shard.index != shard.index || m->shard.count != shard.count) {
      return FailedPreconditionError(
          dir + " holds shard " + ShardText(m->shard) + " of this spec (" + manifest +
          "), not --shard " + ShardText(shard) + "; refusing to re-shard it: use another --out, "
          "or --shard " + ShardText(m->shard) + " to resume it");
    }
    return OkStatus();
  }
  if (m.status().code() != StatusCode::kNotFound) {
    return FailedPreconditionError("cannot tell which shard " + dir + " holds: " +
                                   m.status().ToString() + "; remove " + manifest +
                                   " to resume from its items");
  }
  std::error_code ec;
  for (const DatasetItem& item : spec.items) {
    if (shard.Holds(item.index)) continue;
    if (fs::exists(fs::path(dir) / kDatasetItemsDir / item.id, ec)) {
      return FailedPreconditionError(
          dir + " holds item " + item.id + " (index " + std::to_string(item.index) +
          "), which --shard " + ShardText(shard) + " does not generate: it is another shard's "
          "(or the whole) dataset; refusing to re-shard it: use another --out");
    }
  }
  return OkStatus();
}

// DIR is missing or empty (a new dataset: spec.json written now), or holds this spec and shard.
Status PrepareDirectory(const DatasetSpec& spec, const std::string& dir, const ShardSel& shard) {
  std::error_code ec;
  const bool exists = fs::exists(dir, ec);
  if (exists && !fs::is_directory(dir, ec)) {
    return FailedPreconditionError(dir + ": exists and is not a directory");
  }
  if (exists && !fs::is_empty(dir, ec)) {
    StatusOr<DatasetSpec> held = ReadDatasetDirSpec(dir);
    if (!held.ok() && held.status().code() == StatusCode::kNotFound) {
      return FailedPreconditionError(dir + ": not empty and not a dashi dataset (no " +
                                     kDatasetSpecName + "); refusing to write into it");
    }
    if (!held.ok()) {
      // A spec.json dashi did not write (by hand, or another program): which spec it holds is
      // unknown, so the items beside it cannot be matched with --spec.
      const std::string why = held.status().code() == StatusCode::kDataLoss
                                  ? "not the canonical text dashi writes"
                                  : std::string(held.status().message());
      return FailedPreconditionError(
          dir + ": holds a " + kDatasetSpecName + " that dashi did not write (" + why +
          "), so it cannot match --spec: give --out a new or empty directory; dataset generate "
          "writes " + kDatasetSpecName + " itself");
    }
    if (held->blake2b128 != spec.blake2b128) {
      return FailedPreconditionError(dir + ": holds a dataset of another spec (spec.json " +
                                     held->blake2b128 + ", this spec " + spec.blake2b128 +
                                     "); use another --out");
    }
    DASHI_RETURN_IF_ERROR(CheckSameShard(spec, dir, shard));
  } else {
    fs::create_directories(dir, ec);
    if (ec) return UnavailableError(dir + ": cannot create: " + ec.message());
    DASHI_RETURN_IF_ERROR(
        WriteFileAtomically(dir + "/" + kDatasetSpecName, spec.CanonicalSpecText()));
  }
  fs::create_directories(dir + "/" + kDatasetItemsDir, ec);
  if (ec)
    return UnavailableError(dir + "/" + kDatasetItemsDir + ": cannot create: " + ec.message());
  return OkStatus();
}

// "dataset  12/64 items  3.10 items/s  ETA 17 s" on stderr, at most once a second and at the end.
class ItemProgress {
 public:
  ItemProgress(bool enabled, int64_t total) : enabled_(enabled), total_(total) {}
  void Done() {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    const auto now = std::chrono::steady_clock::now();
    if (!enabled_ || (done_ < total_ && now - last_ < std::chrono::seconds(1))) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double rate = secs > 0 ? static_cast<double>(done_) / secs : 0.0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : 0.0;
    std::fprintf(stderr, "  dataset  %lld/%lld items  %.2f items/s  ETA %.0f s  (%.1f s)\n",
                 static_cast<long long>(done_), static_cast<long long>(total_), rate, eta, secs);
  }

 private:
  std::mutex mu_;
  bool enabled_;
  int64_t total_, done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

}  // namespace

StatusOr<int64_t> EstimateShardBytes(const DatasetSpec& spec, const ShardSel& shard) {
  int64_t total = 0;
  for (const DatasetItem& item : spec.items) {
    if (!shard.Holds(item.index)) continue;
    DASHI_ASSIGN_OR_RETURN(int64_t b, EstimateItemBytes(spec, item));
    DASHI_ASSIGN_OR_RETURN(total, CheckedAdd(total, b, "dataset size"));
  }
  return total;
}

StatusOr<int64_t> FreeDiskBytes(const std::string& path) {
  fs::path p = fs::absolute(path);
  std::error_code ec;
  while (!fs::exists(p, ec) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
  struct statvfs sv;
  if (::statvfs(p.c_str(), &sv) != 0) {
    return UnavailableError(p.string() + ": statvfs failed: cannot tell the free disk space");
  }
  const unsigned long long free = static_cast<unsigned long long>(sv.f_bavail) * sv.f_frsize;
  return free > static_cast<unsigned long long>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(free);
}

StatusOr<GenerateSummary> GenerateDataset(const GenerateOptions& o) {
  // 32 jobs keep every staging directory and temporary within the 64 slots of the signal
  // cleanup registry (core_ref/fileio/temporaries.h).
  if (o.jobs < 1 || o.jobs > 32) {
    return InvalidArgumentError("--jobs " + std::to_string(o.jobs) + " must be in [1, 32]");
  }
  if (o.threads < 1 || o.threads > 256) {
    return InvalidArgumentError("--threads " + std::to_string(o.threads) + " must be in [1, 256]");
  }
  if (o.out.empty()) return InvalidArgumentError("--out is empty");
  // The spec may be the dataset's own spec.json (a resume); anywhere else inside --out it could
  // be replaced with an item.
  if (ComparePaths(o.spec_path, o.out + "/" + kDatasetSpecName) != PathOverlap::kSame) {
    DASHI_RETURN_IF_ERROR(RefuseOverlap(o.out, "--out", o.spec_path, "--spec"));
  }
  DASHI_RETURN_IF_ERROR(RefuseOutputInsideDataset(o.out, "--out"));
  DASHI_ASSIGN_OR_RETURN(DatasetSpec spec, ReadDatasetSpec(o.spec_path));
  DASHI_ASSIGN_OR_RETURN(int64_t shard_bytes, EstimateShardBytes(spec, o.shard));
  if (o.max_disk_bytes > 0 && shard_bytes > o.max_disk_bytes) {
    return ResourceExhaustedError("the dataset (shard " + std::to_string(o.shard.index) + "/" +
                                  std::to_string(o.shard.count) + ") is estimated at " +
                                  HumanBytes(shard_bytes) + " (" + std::to_string(shard_bytes) +
                                  " bytes), more than --max-disk " + HumanBytes(o.max_disk_bytes));
  }
  DASHI_ASSIGN_OR_RETURN(DatasetDirLock lock, DatasetDirLock::Acquire(o.out, o.quiet));
  DASHI_RETURN_IF_ERROR(PrepareDirectory(spec, o.out, o.shard));
  const std::string items_dir = o.out + "/" + kDatasetItemsDir;
  {
    // Items are written into items/ by rename: through a link they would land elsewhere.
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(items_dir, ec))) {
      return FailedPreconditionError(items_dir + ": is a symbolic link; a dataset's items/ must "
                                     "be its own directory (move the items back into it)");
    }
  }

  GenerateSummary summary;
  DatasetManifest manifest{spec.blake2b128, o.shard, {}};
  std::vector<const DatasetItem*> todo;
  std::vector<size_t> todo_slot;
  for (const DatasetItem& item : spec.items) {
    if (!o.shard.Holds(item.index)) continue;
    ++summary.items;
    StatusOr<std::string> kept = VerifyItem(spec, item, items_dir + "/" + item.id);
    manifest.items.push_back({item.index, item.id, kept.ok() ? *kept : ""});
    if (kept.ok()) {
      ++summary.kept;
      continue;
    }
    // An item directory that is a symbolic link (verify reports it) is regenerated in place: the
    // link itself is removed, never what it points to.
    const std::string item_dir = items_dir + "/" + item.id;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(item_dir, ec))) {
      const fs::path target = fs::read_symlink(item_dir, ec);
      if (!fs::remove(item_dir, ec) || ec) {
        return UnavailableError(item_dir + ": is a symbolic link and cannot be removed: " +
                                ec.message());
      }
      if (!o.quiet) {
        std::fprintf(stderr,
                     "dataset: %s was a symbolic link (to %s): the link was removed, its target "
                     "left as it is; the item is generated in place\n",
                     item_dir.c_str(), target.string().c_str());
      }
    }
    todo.push_back(&item);
    todo_slot.push_back(manifest.items.size() - 1);
    DASHI_ASSIGN_OR_RETURN(int64_t b, EstimateItemBytes(spec, item));
    summary.estimated_bytes += b;
  }
  if (!todo.empty()) {
    // Until every item is back, the directory must not look complete.
    std::error_code ec;
    fs::remove(o.out + "/" + kDatasetManifestName, ec);
    DASHI_ASSIGN_OR_RETURN(int64_t free_bytes, FreeDiskBytes(o.out));
    if (summary.estimated_bytes > free_bytes) {
      return ResourceExhaustedError(
          o.out + ": the " + std::to_string(todo.size()) + " items to generate are estimated at " +
          HumanBytes(summary.estimated_bytes) + " (" + std::to_string(summary.estimated_bytes) +
          " bytes); the disk has " + HumanBytes(free_bytes) + " free");
    }
  }
  if (!o.quiet) {
    std::fprintf(stderr,
                 "dataset: %lld items in shard %lld/%lld (%s estimated), %lld complete and "
                 "verified, %zu to generate (%s) with %d jobs x %d LES threads\n",
                 static_cast<long long>(summary.items), static_cast<long long>(o.shard.index),
                 static_cast<long long>(o.shard.count), HumanBytes(shard_bytes).c_str(),
                 static_cast<long long>(summary.kept), todo.size(),
                 HumanBytes(summary.estimated_bytes).c_str(), o.jobs, o.threads);
  }

  ItemProgress progress(!o.quiet, static_cast<int64_t>(todo.size()));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<Status> errors(todo.size(), OkStatus());
  auto worker = [&] {
    while (!failed.load()) {
      const size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      std::vector<std::string> removed;
      StatusOr<std::string> h = GenerateItem(spec, *todo[k], items_dir, o.threads, &removed);
      // Said even with --quiet: the run removed directories it did not make itself.
      for (const std::string& name : removed) {
        std::fprintf(stderr,
                     "dataset: removed %s/%s, the unfinished item of a killed earlier run\n",
                     items_dir.c_str(), name.c_str());
      }
      if (!h.ok()) {
        errors[k] = h.status();
        failed.store(true);
        return;
      }
      manifest.items[todo_slot[k]].item_json_blake2b128 = *h;
      progress.Done();
    }
  };
  std::vector<std::thread> threads;
  const size_t workers = std::min<size_t>(static_cast<size_t>(o.jobs), todo.size());
  for (size_t t = 1; t < workers; ++t) threads.emplace_back(worker);
  if (workers > 0) worker();
  for (std::thread& t : threads) t.join();
  // The first failing item in index order, whichever worker met it first.
  for (const Status& st : errors) {
    if (!st.ok()) return st;
  }
  summary.generated = static_cast<int64_t>(todo.size());
  DASHI_RETURN_IF_ERROR(WriteDatasetManifest(o.out, manifest));
  return summary;
}

}  // namespace dashi::tools
