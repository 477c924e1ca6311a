// What `dashi devices` and `dashi conform` need from the device layer: the list of Vulkan devices
// with each one's certification state for this binary's shader build, and a device opened for the
// conformance suite (validation on unless told otherwise; fp64 optional, since a device without
// it gets NOT_SUPPORTED verdicts rather than a refusal).
//
//   DASHI_ASSIGN_OR_RETURN(std::vector<DeviceStatus> ds, ListDevices(store));
//   DASHI_ASSIGN_OR_RETURN(auto ctx, OpenDeviceForConformance("0", /*validation=*/true));
#ifndef DASHI_BACKEND_DEVICE_CATALOG_H_
#define DASHI_BACKEND_DEVICE_CATALOG_H_

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accel_vulkan/context.h"
#include "conformance/report/cert_store.h"
#include "conformance/report/conformance_report.h"
#include "core_ref/status/status.h"

namespace dashi::backend {

// Provenance (backend/provenance.h) of work done on `device` with the Vulkan backend: its name,
// UUID, driver and API version.
nlohmann::json DeviceProvenance(const vk::DeviceInfo& device);

// BLAKE2b-128 over every SPIR-V module linked into this binary (part of the accelerator build).
std::string ShaderBuild();

// BLAKE2b-128 (hex) over the accelerator's source hash (//build_id: every file of
// //accel_vulkan/..., //shaders/..., //backend, the build settings, the compiler) and
// ShaderBuild(): host code and SPIR-V alike. Certifications are keyed by it.
std::string AcceleratorBuildId();

// This binary's certification key: AcceleratorBuildId() and conformance::SuiteId().
conformance::CertKey CurrentCertKey();

struct DeviceStatus {
  vk::DeviceInfo info;
  conformance::CertLookup cert;
};

// Every physical device and what `cert_store` says about it for CurrentCertKey().
StatusOr<std::vector<DeviceStatus>> ListDevices(const std::string& cert_store);

// The device `selector` names (index, UUID, name substring; "" → $DASHI_VK_DEVICE / 0). With
// validation, a missing validation layer is FAILED_PRECONDITION saying how to run without it.
StatusOr<std::unique_ptr<vk::VulkanContext>> OpenDeviceForConformance(const std::string& selector,
                                                                      bool validation);

}  // namespace dashi::backend

#endif  // DASHI_BACKEND_DEVICE_CATALOG_H_
