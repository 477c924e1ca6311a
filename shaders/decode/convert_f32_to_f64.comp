// fp32 → fp64 (exact), for the declared-fp32 decode path: the fp32 inverse FFT's output becomes
// the fp64 field the mask and the combine read. Bindings: 0 in (float), 1 out (double).
// Push constants: CountParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { float src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { double dst[]; };

#include "count_params.glsl"  // CountParams

void main() {
  // Grid-stride loop: the host caps the x group count at 65535 (Vulkan's guaranteed
  // maxComputeWorkGroupCount), so one dispatch covers any N up to 4096.
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) {
    dst[i] = double(src[i]);
  }
}
