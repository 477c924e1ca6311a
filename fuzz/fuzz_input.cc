#include "fuzz/fuzz_input.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace dashi::fuzz {

const std::string& ScratchDir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/dashi_fuzz.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::perror("dashi fuzz: mkdtemp");
      std::abort();
    }
    return tmpl;
  }();
  return dir;
}

std::string InputAsFile(const uint8_t* data, size_t size, const std::string& name) {
  const std::string path = ScratchDir() + "/" + name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(path.c_str());
    std::abort();
  }
  size_t done = 0;
  while (done < size) {
    const ssize_t r = ::write(fd, data + done, size - done);
    if (r <= 0) {
      std::perror(path.c_str());
      std::abort();
    }
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  return path;
}

void Broken(const char* target, const std::string& what, const Status& status) {
  std::fprintf(stderr, "%s: %s %s\n", target, what.c_str(), status.ToString().c_str());
  std::abort();
}

void RequireMessage(const char* target, const Status& status) {
  if (!status.ok() && status.message().empty()) Broken(target, "error without a message", status);
}

}  // namespace dashi::fuzz
