// Rollout kernel 2 of 2: y[j] = the fixed pairwise tree over the chunk partials p_0..p_{m−1}
// (core_ref/rollout/vecmat.h, "THE CONTRACT", step 2): level by level, (L0+L1, L2+L3, ...), an odd
// last element carried unchanged, the lower-indexed operand on the left.
//
// One invocation per output j. The tree is evaluated as a binary counter, which forms exactly the
// same additions (the same scheme as core_ref's fast kernel): partial c is pushed on a stack; while
// c has a trailing one bit the top two entries merge (stack[d−2] = stack[d−2] + stack[d−1]), i.e.
// two complete aligned blocks of 2^k chunks become one block of 2^(k+1); at the end the stack holds
// the aligned power-of-two blocks of m's binary expansion, largest first, and the contract's tree
// adds them right to left. The stack depth is at most bit_width(m − 1) + 1, the size of `stack`
// (specialization constant 1, set by the host).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kStackSlots = 8u;

#define ROLLOUT_CONTRACT_TREE_ONLY  // no chunk partials here
#include "rollout_contract.glsl"  // the pairwise tree

layout(std430, set = 0, binding = 0) readonly buffer Partials { double partials[]; };  // m×D
layout(std430, set = 0, binding = 1) writeonly buffer StateOut { double y[]; };       // D

#include "rollout_params.glsl"  // RolloutPushConstants

void main() {
  const uint j = gl_GlobalInvocationID.x;
  const uint dim = params.dim;
  const uint chunks = params.chunks;
  if (j >= dim) return;
  double stack[kStackSlots];
  uint depth = 0u;
  for (uint c = 0u; c < chunks; ++c) {
    stack[depth] = partials[c * dim + j];
    ++depth;
    for (uint n = c; (n & 1u) != 0u; n >>= 1u) {
      CONTRACT_MERGE(stack[depth - 2u], stack[depth - 2u], stack[depth - 1u]);
      --depth;
    }
  }
  for (uint k = depth - 1u; k > 0u; --k) {
    CONTRACT_MERGE(stack[k - 1u], stack[k - 1u], stack[k]);
  }
  y[j] = stack[0];
}
