#include "tools/vulkan_flags.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "conformance/report/cert_store.h"

namespace dashi::tools {
namespace {

// Empty when `path` can be a certification store (a directory, or missing: `dashi conform`
// creates it), else why not.
std::string CertStoreProblem(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status) || std::filesystem::is_directory(status)) return {};
  return path + " exists and is not a directory: a certification store is a directory of "
                "records (read as an empty store, every device would look uncertified)";
}

// A blank selector matched every device's name as a substring: device 0, whatever was meant.
std::string DeviceSelectorProblem(const std::string& selector) {
  if (selector.find_first_not_of(" \t\n\r\f\v") != std::string::npos) return {};
  return "an empty or blank device selector would match every device; name a device by its "
         "index, UUID or a part of its name (`dashi devices` lists them)";
}

// The Vulkan-only flags that `cmd`'s command line gave ("--device, --validation"), or "".
std::string VulkanOnlyFlagsGiven(const CLI::App& cmd) {
  std::string given;
  for (const char* name : {"--device", "--allow-uncertified", "--cert-store", "--validation",
                           "--rollout-kernel", "--decode-precision"}) {
    const CLI::Option* opt = cmd.get_option_no_throw(name);
    if (opt != nullptr && opt->count() > 0) given += (given.empty() ? "" : ", ") + opt->get_name();
  }
  return given;
}

}  // namespace

void AddVulkanFlags(CLI::App& cmd, backend::BackendOptions& o, const VulkanFlagSet& which) {
  backend::VulkanOptions& v = o.vulkan;
  if (which.backend) {
    cmd.add_option("--backend", o.name,
                   "ref (the fp64 CPU reference) or vulkan (a Vulkan device that passed `dashi "
                   "conform`; `run` keeps the LES, encoding and fit on the reference); a backend "
                   "that cannot run is an error, never a silent fallback")
        ->check(CLI::IsMember({"ref", "vulkan"}))
        ->capture_default_str();
    cmd.add_option("--backend-policy", o.policy,
                   "strict (a requested backend that cannot run is an error) or permissive (run "
                   "that work on the reference instead; said once on stderr and recorded under "
                   "perf_flags in the output's provenance)")
        ->check(CLI::IsMember({"strict", "permissive"}))
        ->capture_default_str();
  }
  if (which.device) {
    cmd.add_option("--device", v.device,
                   "Vulkan device: index, UUID or name substring (default $DASHI_VK_DEVICE, "
                   "else 0)")
        ->check(CLI::Validator([](std::string& sel) { return DeviceSelectorProblem(sel); },
                               std::string{}, "device selector"));
  }
  if (which.allow_uncertified) {
    cmd.add_flag("--allow-uncertified", v.allow_uncertified,
                 "Use a device without a passing `dashi conform` report (recorded in the output)");
  }
  if (which.cert_store) {
    cmd.add_option("--cert-store,--store", v.cert_store,
                   "Certification store directory (default $DASHI_CERT_STORE, else "
                   "$XDG_DATA_HOME/dashi/certifications or ~/.local/share/dashi/certifications); "
                   "a directory, created by `dashi conform` when missing")
        ->type_name("PATH")
        ->check(CLI::Validator([](std::string& path) { return CertStoreProblem(path); },
                               std::string{}, "store directory"));
  }
  if (which.validation) {
    cmd.add_flag("--validation", v.validation,
                 "Enable the Khronos validation layer; any message fails the run");
  }
  if (which.no_validation) {
    v.validation = true;
    cmd.add_flag_callback(
        "--no-validation", [&v] { v.validation = false; },
        "Run without the Khronos validation layer (the report says so; never certifies)");
  }
  if (which.rollout_kernel) {
    cmd.add_option("--rollout-kernel", v.rollout_kernel,
                   "Vulkan rollout kernel: auto (persistent where the device reports its SM "
                   "count, else fused), persistent (many steps per dispatch), fused (one dispatch "
                   "per step) or two-kernel; all are bit-identical to the reference")
        ->check(CLI::IsMember({"auto", "fused", "two-kernel", "persistent"}))
        ->capture_default_str();
  }
  if (which.decode_precision) {
    cmd.add_option("--decode-precision", v.decode_precision,
                   "fp64, or fp32 inverse FFTs in the Vulkan decoder (declared in the output)")
        ->check(CLI::IsMember({"fp64", "fp32"}))
        ->capture_default_str();
  }
}

void CheckCertStoreEnvironment(const CLI::App& app) {
  const char* env = std::getenv("DASHI_CERT_STORE");
  if (env == nullptr || *env == '\0') return;  // unset or empty: conformance/ ignores it
  for (const CLI::App* cmd : app.get_subcommands()) {
    const CLI::Option* flag = cmd->get_option_no_throw("--cert-store");
    if (flag == nullptr || flag->count() > 0) continue;  // no store, or the flag overrides it
    if (std::string problem = CertStoreProblem(env); !problem.empty()) {
      throw CLI::ValidationError("DASHI_CERT_STORE", problem + "; unset it or name a directory");
    }
  }
}

FlaggedPath CertStorePlace(const backend::VulkanOptions& options) {
  if (!options.cert_store.empty()) return {"--cert-store", options.cert_store};
  if (const char* env = std::getenv("DASHI_CERT_STORE"); env != nullptr && *env != '\0') {
    return {"DASHI_CERT_STORE", env};
  }
  return {"the certification store", conformance::DefaultCertStore()};
}

Status CheckCertStoreWritable(const FlaggedPath& store) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> missing;  // innermost first
  for (fs::path p = fs::absolute(store.path, ec); !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  std::vector<fs::path> created;
  std::string problem;
  for (auto it = missing.rbegin(); it != missing.rend() && problem.empty(); ++it) {
    if (::mkdir(it->c_str(), 0777) == 0) {
      created.push_back(*it);
    } else {
      problem = "cannot create " + it->string() + ": " + std::strerror(errno);
    }
  }
  if (problem.empty()) {
    const std::string probe = store.path + "/.dashi-store-probe." + std::to_string(::getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      problem = "cannot create a file in it: " + std::string(std::strerror(errno));
    } else {
      ::close(fd);
      ::unlink(probe.c_str());
    }
  }
  for (auto it = created.rbegin(); it != created.rend(); ++it) ::rmdir(it->c_str());
  if (problem.empty()) return OkStatus();
  return InvalidArgumentError(store.what + " " + store.path + ": the certification store cannot "
                              "be written (" + problem + "), so the result could not be recorded; "
                              "the suite was not run: name a writable store, or pass --no-store");
}

void CheckVulkanOnlyFlags(const CLI::App& app) {
  for (const CLI::App* cmd : app.get_subcommands()) {
    const CLI::Option* backend = cmd->get_option_no_throw("--backend");
    if (backend == nullptr) continue;  // a Vulkan command (conform, audit, devices)
    if (backend->count() > 0 && backend->results().back() != "ref") continue;
    const std::string given = VulkanOnlyFlagsGiven(*cmd);
    if (given.empty()) continue;
    throw CLI::ValidationError(
        given + ": only for --backend vulkan, and --backend is ref (the default): give "
                "--backend vulkan, or leave " +
        (given.find(',') == std::string::npos ? "it" : "them") + " out");
  }
}

void AnnounceDowngrade(const backend::Backend& b, const std::string& command) {
  if (b.downgrade().empty()) return;
  std::fprintf(stderr, "dashi %s: --backend-policy permissive: %s; this work runs on the reference\n",
               command.c_str(), b.downgrade().c_str());
}

}  // namespace dashi::tools
