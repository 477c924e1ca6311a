// Scatter of the low-k and anchor coefficients of z into the half spectrum (fp64), the twin of
// core_ref Decoder::ScatterLowK: mode i (z order: low modes, then anchors) writes
// (z[2i]·N², z[2i+1]·N²) at its half-spectrum slot and, on the kx = 0 column, the conjugate at
// the mirror slot (−ky). The spectrum must be zeroed before (every other slot stays 0).
// Bindings: 0 z (D doubles), 1 slots (uvec2 per mode: index, mirror or kNoMirror),
// 2 spectrum (dvec2, N × (N/2+1)). Push constants: ScatterLowKParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Z { double z[]; };
layout(std430, set = 0, binding = 1) readonly buffer Slots { uvec2 slots[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Spectrum { dvec2 spectrum[]; };

#include "scatter_lowk_params.glsl"  // ScatterLowKParams
#include "decode_constants.glsl"  // kNoMirror

void main() {
  // Grid-stride loop: the host caps the x group count at 65535 (Vulkan's guaranteed
  // maxComputeWorkGroupCount), so one dispatch covers any N up to 4096.
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) {
    precise double re = z[2u * i] * params.n2;
    precise double im = z[2u * i + 1u] * params.n2;
    const uvec2 slot = slots[i];
    spectrum[slot.x] = dvec2(re, im);
    if (slot.y != kNoMirror) spectrum[slot.y] = dvec2(re, -im);
  }
}
