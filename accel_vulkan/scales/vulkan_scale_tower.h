// VulkanScaleTower: the statistics of the scale tower (docs/MATH.md §12) computed on the device,
// the twin of core_ref's BuildScaleTower for its per-layer statistics. Only the layer sums
// (core_ref/scales/layer_sums.h, ScaleLayerRecord: 104 bytes a layer, plus one record for max |ω|)
// and the closure's control records come back to the host: no field, band or carrier does.
// Per snapshot, on the device:
//   forward FFT of ω (VkFftPlan), max |ω| (carrier normalise record);  per layer ℓ:
//   band mask (shaders/scales) → inverse FFT → normalise, PDA threshold (CarrierRecorder) →
//   floor gate (shaders/scales) → D(s_0) → closure (CarrierClosure) → D(s*) → the layer sums in
//   core_ref's order (shaders/scales) → s* kept as the next layer's coarser carrier.
// One submission per layer (the closure's control record decides whether more steps are needed,
// as in VulkanDecoder); the statistics buffer is copied to the host in the last.
// The integers are core_ref's exactly whenever the device's band fields threshold like core_ref's
// (VkFFT and core_ref's FFT differ in the last bits); the floats agree within the conformance
// tolerance (docs/CONFORMANCE.md, scales.*).
//
//   DASHI_ASSIGN_OR_RETURN(auto tower, VulkanScaleTower::Create(ctx, 128, ScaleTowerParams{}));
//   DASHI_ASSIGN_OR_RETURN(std::vector<ScaleLayer> layers, tower->Run(omega));
//   tower->last_report().stats_readback_bytes;
#ifndef DASHI_ACCEL_VULKAN_SCALES_VULKAN_SCALE_TOWER_H_
#define DASHI_ACCEL_VULKAN_SCALES_VULKAN_SCALE_TOWER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "core_ref/carrier/carrier.h"
#include "core_ref/fft/fft.h"
#include "core_ref/scales/scale_tower.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// What Run reads back.
enum class TowerReadback {
  kMetrics,   // the layer records only (a few hundred bytes): every production use
  kCarriers,  // ALSO ω's half spectrum and, per layer, b_ℓ, s_0,ℓ and s*_ℓ (N²·16 bytes a layer):
              // for the twin tests and a host-side filament trace of the device's carriers;
              // not metrics-only, reported in carrier_readback_bytes
};

// The device's intermediates of the last kCarriers run (empty after a kMetrics run).
struct TowerIntermediates {
  std::vector<Complex> spectrum;          // ω's half spectrum, N×(N/2+1), core_ref's layout
  std::vector<std::vector<double>> band;  // b_ℓ per layer, N×N
  std::vector<Carrier> initial, closed;   // s_0,ℓ and s*_ℓ per layer
};

struct VulkanScaleTowerReport {
  int layers = 0;
  int submissions = 0;
  uint64_t stats_readback_bytes = 0;    // the layer records, copied once per snapshot
  uint64_t closure_readback_bytes = 0;  // the closures' control records, every submission
  uint64_t upload_bytes = 0;            // ω uploaded by Run(span); 0 from a device buffer
  uint64_t carrier_readback_bytes = 0;  // TowerReadback::kCarriers only
  double device_ms = 0;                 // device timestamps, summed over the submissions
  // Its parts, summed over the layers and submissions: "forward" (copy, max|ω|, FFT), "band"
  // (mask, inverse FFT), "threshold" (normalise, P_τ, floor gate, D(s_0)), "closure", "sums"
  // (D(s*), the layer sums, the copies and the readback).
  double forward_ms = 0, band_ms = 0, threshold_ms = 0, closure_ms = 0, sums_ms = 0;
  double host_ms = 0;                   // wall-clock time of the call
};

class VulkanScaleTower {
 public:
  // N a power of two in [8, 4096] fitting the device's storage-buffer range; params validated as
  // core_ref does. Needs shaderFloat64 and shaderInt64. The context must outlive the tower.
  static StatusOr<std::unique_ptr<VulkanScaleTower>> Create(VulkanContext& ctx, int64_t n,
                                                            const ScaleTowerParams& params);
  ~VulkanScaleTower();
  VulkanScaleTower(const VulkanScaleTower&) = delete;
  VulkanScaleTower& operator=(const VulkanScaleTower&) = delete;

  // The layers' statistics of ω (N² finite values, uploaded).
  StatusOr<std::vector<ScaleLayer>> Run(std::span<const double> omega,
                                        TowerReadback readback = TowerReadback::kMetrics);
  // The same of an ω already on the device (the first N² doubles of `omega`, e.g. the decoder's
  // output buffer), copied on the device: nothing but the statistics crosses the bus.
  StatusOr<std::vector<ScaleLayer>> RunOnDevice(const DeviceBuffer& omega);

  const VulkanScaleTowerReport& last_report() const;
  const TowerIntermediates& last_intermediates() const;
  int64_t n() const;
  const ScaleTowerParams& params() const;
  // The guard words after every buffer the tower's shaders and FFTs write are intact (DATA_LOSS
  // naming the buffer otherwise).
  Status CheckGuards() const;

 private:
  struct Impl;
  explicit VulkanScaleTower(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_SCALES_VULKAN_SCALE_TOWER_H_
