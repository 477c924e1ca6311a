// carrier_smooth.comp (one pass of the separable periodic smoothing: the same SmoothCell, the same
// bits) that also writes each workgroup's max |out| over its cells to group_max[flattened
// workgroup index] (0.0 for a workgroup past the end): the normalisation's max then needs no pass
// of its own over the field (carrier_scale_threshold_groups.comp folds these maxima). max is exact
// and order-free on finite values (no rounding), so the tree below gives carrier_maxabs_rows +
// carrier_reduce_rows's value. Every invocation reaches the barriers (no early return).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { double in_values[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { double out_values[]; };
layout(std430, set = 0, binding = 2) writeonly buffer GroupMax { double group_max[]; };

#include "carrier_smooth_params.glsl"  // CarrierSmoothParams
#include "carrier_smooth_cell.glsl"    // SmoothCell

shared double partial[gl_WorkGroupSize.x];

void main() {
  const uint n = p.rows * p.cols;
  const uint k =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  double a = 0.0;
  if (k < n) {
    const double result = SmoothCell(k);
    out_values[k] = result;
    a = abs(result);
  }
  const uint lid = gl_LocalInvocationID.x;
  partial[lid] = a;
  barrier();
  // Halving tree over any workgroup size: the upper half folded into the lower, odd sizes keep
  // their middle element.
  for (uint width = gl_WorkGroupSize.x; width > 1u;) {
    const uint half_width = (width + 1u) / 2u;
    if (lid < width - half_width) {
      const double other = partial[lid + half_width];
      if (other > partial[lid]) partial[lid] = other;
    }
    barrier();
    width = half_width;
  }
  if (lid == 0u) group_max[gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x] = partial[0];
}
