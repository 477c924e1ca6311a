// Closure control (accel_vulkan/carrier/carrier_closure.h), one invocation after each recorded
// closure step s. It reads the step's statistics (levels[slot], from carrier_reduce_rows: c1 =
// cells the step changed) and updates the control record, as core_ref Closure decides:
//   nothing changed            converged = 1 (s* is the step's input, equal to its output)
//   cells changed, s < cap     depth += 1 (the step's output is level s + 1)
//   cells changed, s = cap     the cap's check step: finished without a fixed point
// Once finished it zeroes the x group count of every step dispatch (they are indirect), so the
// steps recorded after this one cost an empty dispatch each; a control dispatch after that
// returns at once (the statistics slot of a skipped step was never written). The host checks
// `steps` against the steps it recorded, so a control record out of step is an error, not a
// silently short closure.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

#include "carrier_totals.glsl"  // CarrierTotals
layout(std430, set = 0, binding = 0) readonly buffer Levels { Totals levels[]; };

// Mirrored by CarrierClosureControl.
layout(std430, set = 0, binding = 1) buffer Control {
  uint depth;
  uint converged;
  uint steps;
  uint pad;
  uvec4 args[3];  // (x, y, z, pad) per kClosureArgs*
} ctl;

#include "carrier_closure_control_params.glsl"  // CarrierClosureControlParams

void main() {
  if (gl_GlobalInvocationID.x != 0u || gl_GlobalInvocationID.y != 0u) return;
  if (ctl.converged != 0u || ctl.steps != p.step) return;
  ctl.steps = p.step + 1u;
  const bool changed = levels[p.slot].c1 != 0ul;
  if (!changed) {
    ctl.converged = 1u;
  } else if (p.step < p.max_iterations) {
    ctl.depth += 1u;
  }
  if (!changed || p.step >= p.max_iterations) {
    for (uint a = 0u; a < 3u; ++a) ctl.args[a].x = 0u;
  }
}
