// Residual synthesis (fp64), the twin of core_ref Decoder::SynthesizeResidual: residual mode i
// (the mid band's modes first, then the high band's) gets amplitude amp_band (computed on the host
// exactly as core_ref does: |z_band| / sqrt(count)·N²) and phase 2π·CounterUniform(seed, t, kx,
// ky, 0), drawn with exact uint64 arithmetic; c = (amp·cos φ, amp·sin φ) with (cos φ, sin φ) =
// SinCosPiF64(2u) (sincospi_f64.glsl: correctly rounded, bit for bit core_ref's SinCosPi; 2u is
// exact), so the spectrum equals core_ref's bit for bit. c goes to the mode's half-spectrum slot
// and, on the kx = 0 column, conj(c) to the mirror slot. The spectrum must be zeroed before.
// Bindings: 0 modes (ResidualMode), 1 spectrum (dvec2). Push constants: SynthResidualParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)
#include "counter_hash.glsl"
#include "sincospi_f64.glsl"

layout(local_size_x_id = 0) in;

#include "residual_mode.glsl"  // ResidualModeEntry

layout(std430, set = 0, binding = 0) readonly buffer Modes { ResidualMode modes[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Spectrum { dvec2 spectrum[]; };

#include "synth_residual_params.glsl"  // SynthResidualParams
#include "decode_constants.glsl"  // kNoMirror

void main() {
  // Grid-stride loop: the host caps the x group count at 65535 (Vulkan's guaranteed
  // maxComputeWorkGroupCount), so one dispatch covers any N up to 4096.
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) {
    const ResidualMode m = modes[i];
    const double amp = i < params.mid_count ? params.amp_mid : params.amp_high;
    const double u = CounterUniform(params.seed, params.t, int64_t(m.kx), int64_t(m.ky), 0UL);
    precise double two_u = 2.0LF * u;  // exact
    double s, c;
    SinCosPiF64(two_u, s, c);
    precise double re = amp * c;
    precise double im = amp * s;
    spectrum[m.index] = dvec2(re, im);
    if (m.mirror != kNoMirror) spectrum[m.mirror] = dvec2(re, -im);
  }
}
