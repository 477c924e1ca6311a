// carrier_scale_threshold.comp with the max taken from the `groups` workgroup maxima that
// carrier_smooth_max.comp wrote (instead of a Totals record of carrier_maxabs_rows +
// carrier_reduce_rows): every workgroup folds them itself (max: exact, order-free on finite
// values), then y = x / m (`precise`; x itself when m = 0) is written out and P_tau(y) to the
// carrier. The same bits as the two-pass max and carrier_scale_threshold; two dispatches fewer.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { double in_values[]; };
layout(std430, set = 0, binding = 1) readonly buffer GroupMax { double group_max[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { double out_values[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Cells { int cells[]; };

#include "carrier_scale_threshold_groups_params.glsl"  // CarrierScaleThresholdGroupsParams
#include "carrier_pda_value.glsl"                      // PdaValue

shared double partial[gl_WorkGroupSize.x];

void main() {
  const uint lid = gl_LocalInvocationID.x;
  double m = 0.0;
  for (uint g = lid; g < p.groups; g += gl_WorkGroupSize.x) {
    const double v = group_max[g];
    if (v > m) m = v;
  }
  partial[lid] = m;
  barrier();
  for (uint width = gl_WorkGroupSize.x; width > 1u;) {
    const uint half_width = (width + 1u) / 2u;
    if (lid < width - half_width) {
      const double other = partial[lid + half_width];
      if (other > partial[lid]) partial[lid] = other;
    }
    barrier();
    width = half_width;
  }
  m = partial[0];
  // 2-D dispatch of a 1-D range (the x group count is capped at 65535).
  const uint k =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (k >= p.n) return;
  const double x = in_values[k];
  precise double y = x / m;
  const double v = (m > 0.0) ? y : x;
  out_values[k] = v;
  cells[k] = PdaValue(v, p.tau);
}
