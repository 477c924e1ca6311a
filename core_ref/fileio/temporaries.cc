#include "core_ref/fileio/temporaries.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core_ref/prng/prng.h"

namespace dashi {
namespace {

constexpr int kSlots = 64;
constexpr size_t kMaxPath = 4096;

// A slot is free (0), being filled (1) or armed (2); the handler only reads armed slots.
struct Slot {
  std::atomic<int> state{0};
  bool directory = false;
  char path[kMaxPath];
};
Slot g_slots[kSlots];
std::atomic<uint64_t> g_hex_counter{0};
std::atomic<bool> g_handlers_installed{false};

std::string HostPart() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::strcpy(host, "host");
  std::string out;
  for (const char* c = host; *c != '\0' && out.size() < 32; ++c) {
    const bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                    (*c >= '0' && *c <= '9') || *c == '_' || *c == '-';
    out.push_back(ok ? *c : '-');
  }
  return out;
}

// Linux's getdents64 record; getdents64 (unlike readdir) is a plain system call, safe in a
// signal handler.
struct Dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

bool IsDotOrDotDot(const char* n) {
  return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

// Removes `name` under `parent_fd`: a file, or a directory with everything in it (up to 16
// levels). Only system calls: async-signal-safe. Entries are removed while listing, so the
// listing restarts from the beginning until a pass removes nothing.
void RemoveTreeAt(int parent_fd, const char* name, int depth) {
  if (::unlinkat(parent_fd, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    if (depth < 16) {
      alignas(8) char buf[4096];
      for (int pass = 0; pass < 1024; ++pass) {
        if (::lseek(fd, 0, SEEK_SET) != 0) break;
        bool removed_any = false;
        for (;;) {
          const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
          if (n <= 0) break;
          for (long off = 0; off < n;) {
            const Dirent64* d = reinterpret_cast<const Dirent64*>(buf + off);
            off += d->d_reclen;
            if (IsDotOrDotDot(d->d_name)) continue;
            RemoveTreeAt(fd, d->d_name, depth + 1);
            removed_any = true;
          }
        }
        if (!removed_any) break;
      }
    }
    ::close(fd);
  }
  ::unlinkat(parent_fd, name, AT_REMOVEDIR);
}

void CleanupHandler(int sig) {
  const int saved = errno;
  fileio_internal::RemoveRegisteredTemporaries();
  errno = saved;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

std::string TemporaryOwnerTag() { return HostPart() + "." + std::to_string(::getpid()); }

std::string UnpredictableHex() {
  const uint64_t clock = static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
  const uint64_t pid = static_cast<uint64_t>(::getpid());
  const uint64_t mixed = Mix64(clock ^ Mix64(pid + kGoldenGamma * (g_hex_counter.fetch_add(1) + 1)));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(mixed));
  return hex;
}

bool IsStaleTemporaryName(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return false;
  std::string_view rest = name.substr(prefix.size());
  const size_t dot1 = rest.find('.');
  if (dot1 == std::string_view::npos) return false;
  const std::string_view host = rest.substr(0, dot1);
  rest = rest.substr(dot1 + 1);
  const size_t dot2 = rest.find('.');
  if (dot2 == std::string_view::npos || dot2 == 0 || dot2 > 9) return false;
  long pid = 0;
  for (char c : rest.substr(0, dot2)) {
    if (c < '0' || c > '9') return false;
    pid = pid * 10 + (c - '0');
  }
  if (host != HostPart() || pid <= 0 || pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

std::vector<std::string> RemoveStaleTemporaries(const std::string& dir, std::string_view prefix) {
  std::vector<std::string> removed;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end;
  std::vector<std::string> stale;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (IsStaleTemporaryName(name, prefix)) stale.push_back(name);
  }
  for (const std::string& name : stale) {
    std::error_code rm;
    std::filesystem::remove_all(std::filesystem::path(dir.empty() ? "." : dir) / name, rm);
    if (!rm) removed.push_back(name);
  }
  return removed;
}

void InstallTemporaryCleanupOnSignals() {
  if (g_handlers_installed.exchange(true)) return;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = CleanupHandler;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

TemporaryGuard::TemporaryGuard(const std::string& path, bool directory) {
  if (path.size() >= kMaxPath) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].directory = directory;
      g_slots[i].state.store(2);
      slot_ = i;
      return;
    }
  }
}

CleanupSignalsBlocked::CleanupSignalsBlocked() {
  sigset_t block;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  ::pthread_sigmask(SIG_BLOCK, &block, &old_);
}

CleanupSignalsBlocked::~CleanupSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

void TemporaryGuard::Release() {
  if (slot_ >= 0) g_slots[slot_].state.store(0);
  slot_ = -1;
}

namespace fileio_internal {

void RemoveRegisteredTemporaries() {
  for (Slot& s : g_slots) {
    if (s.state.load() != 2) continue;
    if (s.directory) {
      RemoveTreeAt(AT_FDCWD, s.path, 0);
    } else {
      ::unlink(s.path);
    }
    s.state.store(0);
  }
}

}  // namespace fileio_internal
}  // namespace dashi
