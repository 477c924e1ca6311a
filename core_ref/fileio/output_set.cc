#include "core_ref/fileio/output_set.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/directory_lock.h"
#include "core_ref/fileio/errno_status.h"
#include "core_ref/fileio/file_digest.h"
#include "core_ref/fileio/temporaries.h"

namespace dashi {
namespace {

namespace fs = std::filesystem;

constexpr char kPartialInfix[] = ".dashi-partial.";

std::string ParentOf(const fs::path& p) {
  const fs::path parent = p.parent_path();
  return parent.empty() ? "." : parent.string();
}

// JSON string contents for a file name (our names are plain; quote and control bytes escaped).
std::string JsonEscaped(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

// ".dashi-output-set": the command and every regular file's relative path, size and BLAKE2b-128,
// sorted by path (byte order), so the marker of a deterministic output is deterministic too.
StatusOr<std::string> MarkerText(const std::string& staging, const std::string& command) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(staging, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), staging).string());
  }
  if (ec) return UnavailableError(staging + ": cannot list the staged outputs: " + ec.message());
  std::sort(files.begin(), files.end());
  std::string text = "{\"format\": 1, \"command\": \"" + JsonEscaped(command) + "\", \"files\": [";
  for (size_t i = 0; i < files.size(); ++i) {
    // Hashed in chunks: committing a set of large streamed files holds no whole file.
    DASHI_ASSIGN_OR_RETURN(FileDigest d, DigestFile(staging + "/" + files[i]));
    text += (i == 0 ? "\n  " : ",\n  ");
    text += "{\"path\": \"" + JsonEscaped(files[i]) + "\", \"bytes\": " +
            std::to_string(d.size) + ", \"blake2b128\": \"" + d.file_blake2b128 + "\"}";
  }
  return text + "\n]}\n";
}

enum class Existing { kMissing, kEmptyDir, kOutputSet, kForeign, kNotDir };

Existing Classify(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec || !fs::exists(st)) return Existing::kMissing;
  if (!fs::is_directory(st)) return Existing::kNotDir;
  if (fs::is_empty(dir, ec) && !ec) return Existing::kEmptyDir;
  return fs::is_regular_file(fs::symlink_status(dir / kOutputSetMarker, ec)) ? Existing::kOutputSet
                                                                             : Existing::kForeign;
}

// An output set's marker text ("" where it cannot be read).
std::string MarkerTextOf(const fs::path& dir) {
  StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes((dir / kOutputSetMarker).string());
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
}

// The command a marker's text records ("" where it names none). MarkerText writes it first,
// unescaped for the commands' plain names.
std::string MarkerCommand(const std::string& text) {
  const std::string key = "\"command\": \"";
  const size_t at = text.find(key);
  if (at == std::string::npos) return "";
  const size_t end = text.find('"', at + key.size());
  return end == std::string::npos ? "" : text.substr(at + key.size(), end - at - key.size());
}

// The relative paths an output set's marker records (MarkerText's "path" strings, unescaped).
std::vector<std::string> MarkerPaths(const std::string& text) {
  std::vector<std::string> paths;
  const std::string key = "{\"path\": \"";
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
    std::string path;
    size_t i = at + key.size();
    for (; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] != '\\' || i + 1 >= text.size()) {
        path.push_back(text[i]);
      } else if (text[i + 1] == 'u' && i + 5 < text.size()) {  // \u00XX: a control byte
        path.push_back(static_cast<char>(std::strtol(text.substr(i + 2, 4).c_str(), nullptr, 16)));
        i += 5;
      } else {
        path.push_back(text[++i]);
      }
    }
    paths.push_back(std::move(path));
    at = i;
  }
  return paths;
}

// The first entry under an earlier output set's directory that its marker does not record (a
// file or link a user added, at any depth), relative to `dir`; "" when there is none.
// Directories are walked, not judged: deleting an empty one loses nothing.
std::string UnrecordedEntry(const fs::path& dir, const std::string& marker_text) {
  const std::vector<std::string> files = MarkerPaths(marker_text);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
       !ec && it != end; it.increment(ec)) {
    const std::string rel = fs::relative(it->path(), dir, ec).string();
    if (rel == kOutputSetMarker) continue;
    const fs::file_status st = it->symlink_status(ec);
    bool recorded = false;
    if (fs::is_regular_file(st)) {
      recorded = std::find(files.begin(), files.end(), rel) != files.end();
    } else if (fs::is_directory(st)) {
      // Its entries are judged one by one; an empty one loses nothing.
      recorded = true;
    }
    if (!recorded) return rel;
  }
  return ec ? "(an entry that cannot be listed: " + ec.message() + ")" : "";
}

// What may not be replaced: a file, a foreign directory, and another command's output set (an
// earlier set is replaced only by the command that wrote it: `dashi decode --out-dir` onto `dashi
// learn`'s directory would delete the model it reads).
Status RefuseExisting(const std::string& dir, const fs::path& final_dir, Existing e,
                      const std::string& command, OutputSet::Unrecorded unrecorded) {
  if (e == Existing::kNotDir) {
    return InvalidArgumentError(dir + ": exists and is not a directory");
  }
  if (e == Existing::kForeign) {
    return FailedPreconditionError(
        dir + ": exists and holds files that are not a dashi output set (no " +
        std::string(kOutputSetMarker) + "); dashi replaces only its own output directories: "
        "choose a new output directory, or empty or remove this one");
  }
  if (e == Existing::kOutputSet) {
    const std::string marker_text = MarkerTextOf(final_dir);
    const std::string recorded = MarkerCommand(marker_text);
    if (recorded != command) {
      return FailedPreconditionError(
          dir + ": holds the outputs of " +
          (recorded.empty() ? std::string("another dashi command") : "`dashi " + recorded + "`") +
          " (" + std::string(kOutputSetMarker) + "); `dashi " + command +
          "` replaces only its own earlier outputs: choose another output directory");
    }
    // Replacing the set deletes the whole directory: only what the earlier run wrote.
    if (unrecorded == OutputSet::Unrecorded::kReplace) return OkStatus();
    if (const std::string extra = UnrecordedEntry(final_dir, marker_text); !extra.empty()) {
      return FailedPreconditionError(
          dir + ": holds " + extra + ", which the earlier `dashi " + command +
          "` did not write (it is not in " + std::string(kOutputSetMarker) +
          "); replacing the outputs would delete it: move it out, or choose another output "
          "directory");
    }
  }
  return OkStatus();
}

}  // namespace

struct OutputSet::State {
  bool directory_set = true;
  std::string command;
  OutputSet::Unrecorded unrecorded = OutputSet::Unrecorded::kRefuse;
  fs::path final_dir;                    // directory set: the final directory
  std::vector<std::string> final_paths;  // file set: the final files, completion record last
  std::string staging;
  std::vector<std::string> removed_stale;
  std::optional<TemporaryGuard> guard;
  bool committed = false;
};

OutputSet::OutputSet(std::unique_ptr<State> state) : state_(std::move(state)) {}
OutputSet::OutputSet(OutputSet&& other) noexcept = default;

OutputSet::~OutputSet() {
  if (state_ == nullptr || state_->committed) return;
  std::error_code ec;
  fs::remove_all(state_->staging, ec);
  state_->guard.reset();
}

namespace {

// Creates the hidden staging directory in `parent` for the final name `base`, after removing
// stale ones of the same name; registers it for removal on signals.
Status MakeStaging(const std::string& parent, const std::string& base, std::string& staging,
                   std::vector<std::string>& removed_stale, std::optional<TemporaryGuard>& guard) {
  const std::string prefix = "." + base + kPartialInfix;
  removed_stale = RemoveStaleTemporaries(parent, prefix);
  for (int attempt = 0; attempt < 100; ++attempt) {
    staging = parent + "/" + prefix + TemporaryOwnerTag() + "." + UnpredictableHex();
    CleanupSignalsBlocked blocked;  // a signal between mkdir and the guard waits for the guard
    if (::mkdir(staging.c_str(), 0777) == 0) {
      guard.emplace(staging, /*directory=*/true);
      return OkStatus();
    }
    if (errno != EEXIST) {
      return ErrnoStatus(errno, staging + ": cannot create the staging directory for the outputs");
    }
  }
  return UnavailableError(parent + ": no free staging directory name for " + base);
}

// File sets committed into one directory go one at a time: an exclusive flock(2) on the directory,
// held only while a set's files are renamed, so two processes writing the same set at once
// (`simulate --out t.npy` twice) leave the whole set of the last committer, never t.npy of one
// and t.json of the other. A directory set needs none (it is exchanged in one rename). No dashi
// process commits a file set into a directory it has locked itself (`dataset generate` holds its
// --out's lock for its whole run but commits only directory sets), which would wait on itself;
// a holder that never lets go (a stopped process) is waited for at most kWait, then an error.
// Waits for `dir`'s DirectoryLock while another process holds it, at most kWait.
StatusOr<DirectoryLock> AcquireCommitLock(const std::string& dir) {
  constexpr auto kWait = std::chrono::seconds(30);
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (true) {
    StatusOr<DirectoryLock> lock = DirectoryLock::TryAcquire(dir);
    // Locked, or no flock on this file system: the set is committed (unlocked in the latter).
    if (!lock.ok() || lock->state() != DirectoryLock::State::kBusy) return lock;
    if (std::chrono::steady_clock::now() >= deadline) {
      return UnavailableError(dir + ": another process has held this directory's lock for " +
                              std::to_string(kWait.count()) + " s (a `dashi dataset generate` "
                              "writing it, or a stopped dashi committing its outputs); the "
                              "outputs were not moved into place");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

Status RenameOrError(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return ErrnoStatus(errno, "cannot rename '" + from + "' to '" + to + "'");
  }
  return OkStatus();
}

}  // namespace

StatusOr<OutputSet> OutputSet::ForDirectory(const std::string& dir, const std::string& command,
                                            Unrecorded unrecorded) {
  if (dir.empty()) return InvalidArgumentError("the output directory name is empty");
  auto s = std::make_unique<State>();
  s->command = command;
  s->unrecorded = unrecorded;
  std::error_code ec;
  fs::path final_dir = fs::path(dir).lexically_normal();
  if (final_dir.filename().empty()) final_dir = final_dir.parent_path();  // "out/" → "out"
  if (fs::is_symlink(fs::symlink_status(final_dir, ec))) {
    final_dir = fs::canonical(final_dir, ec);
    if (ec) return InvalidArgumentError(dir + ": a symlink that cannot be resolved: " + ec.message());
  }
  const std::string base = final_dir.filename().string();
  if (base.empty() || base == "." || base == "..") {
    return InvalidArgumentError(dir + ": name a directory by its own name (not . or ..)");
  }
  DASHI_RETURN_IF_ERROR(
      RefuseExisting(dir, final_dir, Classify(final_dir), command, unrecorded));
  const std::string parent = ParentOf(final_dir);
  fs::create_directories(parent, ec);
  if (ec) return InvalidArgumentError(parent + ": cannot create directory: " + ec.message());
  s->final_dir = final_dir;
  DASHI_RETURN_IF_ERROR(MakeStaging(parent, base, s->staging, s->removed_stale, s->guard));
  return OutputSet(std::move(s));
}

StatusOr<OutputSet> OutputSet::ForFiles(const std::vector<std::string>& final_paths) {
  if (final_paths.empty()) return InvalidArgumentError("an output file set needs a file");
  auto s = std::make_unique<State>();
  s->directory_set = false;
  const std::string parent = ParentOf(fs::path(final_paths.front()));
  for (const std::string& p : final_paths) {
    if (ParentOf(fs::path(p)) != parent) {
      return InvalidArgumentError(p + ": the outputs of one set must share a directory (" +
                                  parent + ")");
    }
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(p, ec);
    if (fs::is_directory(st)) return InvalidArgumentError(p + ": is a directory, expected a file");
    if (fs::exists(st) && !fs::is_regular_file(st)) {
      // The set is renamed over its final names: a symlink would be replaced, not followed, and
      // a device or FIFO (/dev/null) would become a regular file.
      return InvalidArgumentError(
          p + ": exists and is not a regular file (" +
          (fs::is_symlink(st) ? "a symlink" : "a device, FIFO or socket") +
          "); dashi writes its outputs by renaming over the final name: choose a regular file "
          "name");
    }
    if (fs::path(p).filename().empty()) return InvalidArgumentError(p + ": names no file");
  }
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) {
    return NotFoundError(parent + ": the output directory does not exist");
  }
  s->final_paths = final_paths;
  DASHI_RETURN_IF_ERROR(MakeStaging(parent, fs::path(final_paths.front()).filename().string(),
                                    s->staging, s->removed_stale, s->guard));
  return OutputSet(std::move(s));
}

std::string OutputSet::Path(const std::string& relative) const {
  if (state_->directory_set) return state_->staging + "/" + relative;
  return state_->staging + "/" + fs::path(relative).filename().string();
}

const std::string& OutputSet::staging() const { return state_->staging; }

const std::vector<std::string>& OutputSet::removed_stale() const { return state_->removed_stale; }

Status OutputSet::Commit() {
  State& s = *state_;
  if (s.committed) return FailedPreconditionError("output set committed twice");
  if (!s.directory_set) {
    DASHI_ASSIGN_OR_RETURN(DirectoryLock lock,
                           AcquireCommitLock(ParentOf(fs::path(s.final_paths.front()))));
    // The old completion record goes first, the new one comes last.
    const std::string& record = s.final_paths.back();
    if (::unlink(record.c_str()) != 0 && errno != ENOENT) {
      return ErrnoStatus(errno, record + ": cannot remove the earlier output");
    }
    for (const std::string& p : s.final_paths) {
      const std::string staged = Path(p);
      std::error_code ec;
      if (!fs::exists(fs::symlink_status(staged, ec))) continue;  // not produced by this run
      DASHI_RETURN_IF_ERROR(RenameOrError(staged, p));
    }
    std::error_code ec;
    fs::remove_all(s.staging, ec);
    s.committed = true;
    s.guard.reset();
    return OkStatus();
  }

  DASHI_ASSIGN_OR_RETURN(std::string marker, MarkerText(s.staging, s.command));
  DASHI_RETURN_IF_ERROR(WriteFileAtomically(s.staging + "/" + kOutputSetMarker, marker));
  const std::string final_dir = s.final_dir.string();
  const Existing e = Classify(s.final_dir);
  // It may have changed since creation.
  DASHI_RETURN_IF_ERROR(RefuseExisting(final_dir, s.final_dir, e, s.command, s.unrecorded));
  if (e == Existing::kMissing || e == Existing::kEmptyDir) {
    DASHI_RETURN_IF_ERROR(RenameOrError(s.staging, final_dir));
  } else if (::renameat2(AT_FDCWD, s.staging.c_str(), AT_FDCWD, final_dir.c_str(),
                         RENAME_EXCHANGE) == 0) {
    std::error_code ec;
    fs::remove_all(s.staging, ec);  // now holds the earlier set
  } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    // No atomic exchange on this file system: the earlier set goes aside (a stale name if we die
    // now), the new one comes in.
    const std::string aside = ParentOf(s.final_dir) + "/." + s.final_dir.filename().string() +
                              kPartialInfix + TemporaryOwnerTag() + "." + UnpredictableHex();
    DASHI_RETURN_IF_ERROR(RenameOrError(final_dir, aside));
    if (Status st = RenameOrError(s.staging, final_dir); !st.ok()) {
      (void)::rename(aside.c_str(), final_dir.c_str());
      return st;
    }
    std::error_code ec;
    fs::remove_all(aside, ec);
  } else {
    return ErrnoStatus(errno, "cannot exchange '" + s.staging + "' with '" + final_dir + "'");
  }
  s.committed = true;
  s.guard.reset();
  const int dfd = ::open(ParentOf(s.final_dir).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return OkStatus();
}

}  // namespace dashi
