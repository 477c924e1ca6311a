// Rollout kernel 1 of 2: the chunk partials of y = z·A in the canonical order
// (core_ref/rollout/vecmat.h, "THE CONTRACT", step 1).
//
// One invocation per (chunk c, output j): x = j (workgroup size = specialization constant 0),
// y = c (one workgroup row per chunk). With C = 64 and i0 = c·C,
//   acc = z[i0]·A[i0][j];  acc = acc + z[i]·A[i][j]  for i = i0+1 .. min(i0+C, D)−1, in order,
// every product rounded to fp64 before the addition (`precise` = SPIR-V NoContraction: no FMA).
// The accumulator starts from the first product, never from 0 (0 + (−0) would be +0).
// Output: partials[c·D + j] (c-major, so kernel 2 reads each level coalesced along j). With a
// single chunk (D ≤ 64) the host binds the next state buffer here instead: p_0 is then y itself.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_EXT_control_flow_attributes : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(local_size_x_id = 0) in;

#include "rollout_contract.glsl"  // kChunk, the chunk partial and the pairwise tree

layout(std430, set = 0, binding = 0) readonly buffer MatrixA { double a[]; };        // D×D
layout(std430, set = 0, binding = 1) readonly buffer StateIn { double z[]; };        // D
layout(std430, set = 0, binding = 2) writeonly buffer Partials { double partials[]; };  // m×D

#include "rollout_params.glsl"  // RolloutPushConstants

void main() {
  const uint j = gl_GlobalInvocationID.x;
  const uint c = gl_WorkGroupID.y;
  const uint dim = params.dim;
  if (j >= dim || c >= params.chunks) return;
  const uint i0 = c * kChunk;
  const uint i1 = min(i0 + kChunk, dim);
  uint idx = i0 * dim + j;  // A[i0][j]; D ≤ 16384 keeps every index below 2^32
  CONTRACT_CHUNK_PARTIAL(acc, z, a, i0, i1, idx, dim);
  partials[c * dim + j] = acc;
}
