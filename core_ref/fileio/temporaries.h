// Temporaries that never outlive their process unnoticed: every temporary name carries an owner
// tag "<host>.<pid>", a registered temporary is removed when the process is stopped by SIGINT,
// SIGTERM or SIGHUP, and one left behind by kill -9 is recognised as stale (its host is this host
// and its process is gone) and removed by the next writer of the same output.
//
//   InstallTemporaryCleanupOnSignals();                 // once, at the start of main
//   TemporaryGuard guard(tmp_path, /*directory=*/false);  // removed on a signal until Release()
//   std::vector<std::string> gone = RemoveStaleTemporaries("out", "a.npy.dashi-tmp.");
#ifndef DASHI_CORE_REF_FILEIO_TEMPORARIES_H_
#define DASHI_CORE_REF_FILEIO_TEMPORARIES_H_

#include <signal.h>

#include <string>
#include <string_view>
#include <vector>

namespace dashi {

// "<host>.<pid>": the host name with every character outside [A-Za-z0-9_-] replaced by '-' (so the
// tag has exactly one dot), cut to 32 characters.
std::string TemporaryOwnerTag();

// An unpredictable 16-hex-digit suffix (clock, pid and a process-wide counter mixed).
std::string UnpredictableHex();

// True when `name` is `prefix` + "<host>.<pid>." + anything, host is this machine's and no process
// `pid` exists. A temporary of another host (a shared file system) is never stale here.
bool IsStaleTemporaryName(std::string_view name, std::string_view prefix);

// Removes (recursively) the entries of `dir` that IsStaleTemporaryName; returns their names.
// Best effort: entries that cannot be removed are left and not returned.
std::vector<std::string> RemoveStaleTemporaries(const std::string& dir, std::string_view prefix);

// Signal handlers for SIGINT, SIGTERM and SIGHUP that remove every registered temporary, then
// die of the same signal (the exit status still says which). Idempotent; does nothing for a
// signal the process ignores.
void InstallTemporaryCleanupOnSignals();

// Registers `path` (a file, or a directory removed with its contents) for removal by those
// handlers while the guard lives and Release() was not called. The registry has a fixed number of
// slots; when they are full or the path is too long the guard silently protects nothing (the name
// is still recognisable as stale).
class TemporaryGuard {
 public:
  TemporaryGuard(const std::string& path, bool directory);
  ~TemporaryGuard() { Release(); }
  TemporaryGuard(TemporaryGuard&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  TemporaryGuard& operator=(TemporaryGuard&&) = delete;
  TemporaryGuard(const TemporaryGuard&) = delete;
  // The path is no longer a temporary (renamed into place, or removed by its owner).
  void Release();

 private:
  int slot_ = -1;
};

// Blocks SIGINT, SIGTERM and SIGHUP for the calling thread while it lives (pthread_sigmask), so
// that creating a temporary and registering its guard is one step for the handlers: a signal
// arriving in between is delivered after the guard exists, and the temporary is removed.
class CleanupSignalsBlocked {
 public:
  CleanupSignalsBlocked();
  ~CleanupSignalsBlocked();
  CleanupSignalsBlocked(const CleanupSignalsBlocked&) = delete;
  CleanupSignalsBlocked& operator=(const CleanupSignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

namespace fileio_internal {
// The removal the signal handler performs, callable directly by tests. Async-signal-safe.
void RemoveRegisteredTemporaries();
}  // namespace fileio_internal

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_TEMPORARIES_H_
