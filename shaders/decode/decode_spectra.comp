// Both spectra of a decode in one dispatch (fp64): every slot of the low-pass half spectrum and of
// the residual's, written whole (no clearing pass before), the twin of core_ref
// Decoder::ScatterLowK and Decoder::SynthesizeResidual on zeroed spectra.
//   Slot s's entry in the slot map (uvec2: x for the low-pass spectrum, y for the residual's) is
// kNoMode (the slot stays 0) or the index of the mode that core_ref's Put writes there LAST, with
// kMirrorBit set when that write is the conjugate one (the −ky slot on the kx = 0 column); the
// host builds the map by replaying Put's writes in core_ref's order (low modes, then anchors;
// mid band, then high band), so where two writes meet, the later wins, as on the CPU.
//   Low-pass mode i: (z[2i]·N², z[2i+1]·N²), conjugated at the mirror slot.
//   Residual mode i (the mid band's first, then the high band's): amplitude amp_band (computed on
// the host exactly as core_ref does: |z_band| / sqrt(count)·N²) and phase 2π·CounterUniform(seed,
// t, kx, ky, 0), drawn with exact uint64 arithmetic; c = (amp·cos φ, amp·sin φ) with (cos φ,
// sin φ) = SinCosPiF64(2u) (sincospi_f64.glsl: correctly rounded, bit for bit core_ref's SinCosPi;
// 2u is exact), conj(c) at the mirror slot. So both spectra equal core_ref's bit for bit.
// Bindings: 0 z (D doubles), 1 slot map (uvec2 per slot), 2 residual modes (ResidualMode),
// 3 low-pass spectrum, 4 residual spectrum (dvec2, N × (N/2+1) each). Push constants:
// DecodeSpectraParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)
#include "counter_hash.glsl"
#include "sincospi_f64.glsl"

layout(local_size_x_id = 0) in;

#include "residual_mode.glsl"  // ResidualMode

layout(std430, set = 0, binding = 0) readonly buffer Z { double z[]; };
layout(std430, set = 0, binding = 1) readonly buffer SlotMap { uvec2 slot_map[]; };
layout(std430, set = 0, binding = 2) readonly buffer Modes { ResidualMode modes[]; };
layout(std430, set = 0, binding = 3) writeonly buffer LowPass { dvec2 spec_lp[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Residual { dvec2 spec_resid[]; };

#include "decode_spectra_params.glsl"  // DecodeSpectraParams
#include "decode_constants.glsl"  // kNoMode, kMirrorBit

void main() {
  // Grid-stride loop: the host caps the x group count at 65535 (Vulkan's guaranteed
  // maxComputeWorkGroupCount), so one dispatch covers any N up to 4096.
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint s = gl_GlobalInvocationID.x; s < params.slots; s += stride) {
    const uvec2 entry = slot_map[s];
    dvec2 lp = dvec2(0.0LF);
    if (entry.x != kNoMode) {
      const uint i = entry.x & ~kMirrorBit;
      precise double re = z[2u * i] * params.n2;
      precise double im = z[2u * i + 1u] * params.n2;
      lp = dvec2(re, (entry.x & kMirrorBit) != 0u ? -im : im);
    }
    spec_lp[s] = lp;
    dvec2 resid = dvec2(0.0LF);
    if (entry.y != kNoMode) {
      const uint i = entry.y & ~kMirrorBit;
      const ResidualMode m = modes[i];
      const double amp = i < params.mid_count ? params.amp_mid : params.amp_high;
      const double u = CounterUniform(params.seed, params.t, int64_t(m.kx), int64_t(m.ky), 0UL);
      precise double two_u = 2.0LF * u;  // exact
      double sn, cs;
      SinCosPiF64(two_u, sn, cs);
      precise double re = amp * cs;
      precise double im = amp * sn;
      resid = dvec2(re, (entry.y & kMirrorBit) != 0u ? -im : im);
    }
    spec_resid[s] = resid;
  }
}
