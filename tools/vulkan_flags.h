// The one place the backend and Vulkan flags are registered, so `run`, `rollout`, `audit`,
// `conform` and `devices` spell and explain them the same way; each command says which it takes.
//
//   AddVulkanFlags(*cmd, o->backend, kBackendWorkFlags);
//   AddVulkanFlags(*cmd, o->device, {.device = true, .validation = true, .rollout_kernel = true});
#ifndef DASHI_TOOLS_VULKAN_FLAGS_H_
#define DASHI_TOOLS_VULKAN_FLAGS_H_

#include <CLI/CLI.hpp>

#include "backend/backend.h"
#include "tools/output_guard.h"

namespace dashi::tools {

struct VulkanFlagSet {
  bool backend = false;            // --backend ref|vulkan
  bool device = false;             // --device
  bool allow_uncertified = false;  // --allow-uncertified
  bool cert_store = false;         // --cert-store (also spelled --store, for `conform`)
  bool validation = false;         // --validation (opt in)
  bool no_validation = false;      // --no-validation (opt out: `conform` validates by default)
  bool rollout_kernel = false;     // --rollout-kernel
  bool decode_precision = false;   // --decode-precision
};

// What a command that runs its work on a chosen backend takes (`run` adds --decode-precision).
inline constexpr VulkanFlagSet kBackendWorkFlags = {.backend = true,
                                                   .device = true,
                                                   .allow_uncertified = true,
                                                   .cert_store = true,
                                                   .validation = true,
                                                   .rollout_kernel = true};

void AddVulkanFlags(CLI::App& cmd, backend::BackendOptions& options, const VulkanFlagSet& which);

// The certification store a command uses without --cert-store is $DASHI_CERT_STORE, resolved in
// conformance/ (hashed into the suite id, so not checked there): after parsing, for the parsed
// command that takes --cert-store and was not given it, a DASHI_CERT_STORE that exists and is not
// a directory throws CLI::ValidationError "DASHI_CERT_STORE: <path> exists and is not a
// directory ..." — a command-line error (exit code 2), as the flag's own check is.
void CheckCertStoreEnvironment(const CLI::App& app);

// After parsing: a command that takes --backend, run on ref (the default), given a Vulkan-only flag
// (--device, --allow-uncertified, --cert-store, --validation, --rollout-kernel,
// --decode-precision), which would be ignored, throws CLI::ValidationError naming each such flag
// (exit code 2). A permissive downgrade from vulkan to ref is decided later and is not this case.
void CheckVulkanOnlyFlags(const CLI::App& app);

// The certification store a command uses, named as it was chosen, for messages and output checks:
// {"--cert-store", DIR} when the flag gave it, else {"DASHI_CERT_STORE", $DASHI_CERT_STORE}, else
// {"the certification store", the default (conformance::DefaultCertStore)}.
FlaggedPath CertStorePlace(const backend::VulkanOptions& options);

// Whether `dashi conform` will be able to record its result in `store` (CertStorePlace), checked
// before the suite runs (a store that cannot be written was reported after 14 minutes of cases):
// the missing directories are created and a file is created in the store, then all of it is
// removed again. INVALID_ARGUMENT naming the flag or variable, the path and the system's reason.
Status CheckCertStoreWritable(const FlaggedPath& store);

// When `b` was downgraded by --backend-policy permissive, says so once on stderr:
// "dashi <command>: --backend-policy permissive: backend vulkan -> ref: <why>".
void AnnounceDowngrade(const backend::Backend& b, const std::string& command);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_VULKAN_FLAGS_H_
