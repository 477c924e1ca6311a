// The one place the backend and Vulkan flags are registered, so `run`, `rollout`, `audit`,
// `conform` and `devices` spell and explain them the same way; each command says which it takes.
//
//   AddVulkanFlags(*cmd, o->backend, {.backend = true, .allow_uncertified = true, ...});
#ifndef DASHI_TOOLS_VULKAN_FLAGS_H_
#define DASHI_TOOLS_VULKAN_FLAGS_H_

#include <CLI/CLI.hpp>

#include "backend/backend.h"

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

void AddVulkanFlags(CLI::App& cmd, backend::BackendOptions& options, const VulkanFlagSet& which);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_VULKAN_FLAGS_H_
