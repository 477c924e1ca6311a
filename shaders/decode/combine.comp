// ω = ω_lp + s*·ω_resid (fp64), the twin of core_ref Decoder::Decode's last loop: s* is the
// device carrier (int32 per cell, −1/0/+1); double(s)·r is exact, so one rounding, as on the CPU.
// Bindings: 0 ω_lp, 1 ω_resid, 2 s* (int32), 3 ω. Push constants: CountParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Lp { double lp[]; };
layout(std430, set = 0, binding = 1) readonly buffer Resid { double resid[]; };
layout(std430, set = 0, binding = 2) readonly buffer Mask { int mask[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Omega { double omega[]; };

#include "count_params.glsl"  // CountParams

void main() {
  // Grid-stride loop: the host caps the x group count at 65535 (Vulkan's guaranteed
  // maxComputeWorkGroupCount), so one dispatch covers any N up to 4096.
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) {
    precise double product = double(mask[i]) * resid[i];
    precise double sum = lp[i] + product;
    omega[i] = sum;
  }
}
