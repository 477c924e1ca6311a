// The fp64 multiply + add throughput a shader reaches on this device, under the contract (every
// multiply and add `precise`: separate instructions, no FMA) — the floor the batched rollout's
// GFLOP/s are compared with (docs/PERF.md). Six loops, chosen by specialization constant 1:
//   mode 0: 16 independent chains per invocation in registers, acc ← acc·x + y;
//   mode 1: the batched rollout's inner loop without its global loads, barriers or tree: each
//           invocation 4×4 outputs of a 64×64 tile, the operands of each of TK = 32 term rows
//           loaded from shared memory as dvec2 pairs as the tiled kernel's vector loads do (pairs
//           tx and tx + 16 of the columns, ty and ty + 16 of the rows: a warp's loads are
//           contiguous), 16 multiplies and 16 adds per term row;
//   mode 2: mode 1 with a workgroup barrier after every 32 term rows (the tiled kernel has one
//           per slice);
//   mode 3: mode 1 with 4 rows × 8 columns per invocation (32 chains; column pairs tx, tx + 16
//           and, again, (tx + 8) mod 16 and 16 + (tx + 8) mod 16);
//   mode 4: mode 1 with each invocation's column pairs adjacent (2tx, 2tx + 1) and row pairs
//           (2ty, 2ty + 1): a warp's column loads 32 bytes apart (more shared-memory wavefronts);
//   mode 5: mode 1 with a workgroup barrier after every 16 term rows (the tiled kernel's slice).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kMode = 0;

layout(std430, set = 0, binding = 0) writeonly buffer Output { double result[]; };
layout(push_constant) uniform Params {
  double x;
  double y;
  uint iters;
} params;

const uint kTk = 32;
shared dvec2 a_tile[kTk][32];  // term row kk: 64 columns as 32 pairs
shared dvec2 z_tile[kTk][32];  // term row kk: 64 rows as 32 pairs

void main() {
  const uint t = gl_LocalInvocationID.x;
  if (kMode == 0) {
    precise double acc[16];
    for (uint k = 0; k < 16; ++k) acc[k] = double(t + k) * 1e-3;
    for (uint it = 0; it < params.iters; ++it) {
      for (uint k = 0; k < 16; ++k) {
        precise double prod = acc[k] * params.x;
        acc[k] = prod + params.y;
      }
    }
    precise double sum = 0.0;
    for (uint k = 0; k < 16; ++k) sum = sum + acc[k];
    result[gl_GlobalInvocationID.x] = sum;
    return;
  }
  // mode 1: fill the tiles once (every invocation writes some entries), then the term-row loop.
  for (uint i = t; i < kTk * 32; i += gl_WorkGroupSize.x) {
    const uint kk = i / 32, c = i % 32;
    a_tile[kk][c] = dvec2(params.x + double(i) * 1e-9, params.x - double(i) * 1e-9);
    z_tile[kk][c] = dvec2(params.y + double(c) * 1e-9, params.y - double(kk) * 1e-9);
  }
  barrier();
  const uint tx = t % 16, ty = t / 16;  // 16×16 invocations, each 4 columns × 4 rows
  if (kMode == 3) {
    precise double acc8[4][8];
    for (uint r = 0; r < 4; ++r)
      for (uint c = 0; c < 8; ++c) acc8[r][c] = 0.0;
    for (uint it = 0; it < params.iters; ++it) {
      for (uint kk = 0; kk < kTk; ++kk) {
        const uint tx2 = (tx + 8u) % 16u;
        const dvec2 a01 = a_tile[kk][tx], a23 = a_tile[kk][16u + tx];
        const dvec2 a45 = a_tile[kk][tx2], a67 = a_tile[kk][16u + tx2];
        const dvec2 z01 = z_tile[kk][ty], z23 = z_tile[kk][16u + ty];
        const double a[8] = double[8](a01.x, a01.y, a23.x, a23.y, a45.x, a45.y, a67.x, a67.y);
        const double z[4] = double[4](z01.x, z01.y, z23.x, z23.y);
        for (uint r = 0; r < 4; ++r) {
          for (uint c = 0; c < 8; ++c) {
            precise double prod = z[r] * a[c];
            acc8[r][c] = acc8[r][c] + prod;
          }
        }
      }
    }
    precise double sum8 = 0.0;
    for (uint r = 0; r < 4; ++r)
      for (uint c = 0; c < 8; ++c) sum8 = sum8 + acc8[r][c];
    result[gl_GlobalInvocationID.x] = sum8;
    return;
  }
  precise double acc[4][4];
  for (uint r = 0; r < 4; ++r)
    for (uint c = 0; c < 4; ++c) acc[r][c] = 0.0;
  for (uint it = 0; it < params.iters; ++it) {
    for (uint kk = 0; kk < kTk; ++kk) {
      const uint ca = kMode == 4 ? 2u * tx : tx, cb = kMode == 4 ? 2u * tx + 1u : 16u + tx;
      const uint ra = kMode == 4 ? 2u * ty : ty, rb = kMode == 4 ? 2u * ty + 1u : 16u + ty;
      const dvec2 a01 = a_tile[kk][ca], a23 = a_tile[kk][cb];
      const dvec2 z01 = z_tile[kk][ra], z23 = z_tile[kk][rb];
      const double a[4] = double[4](a01.x, a01.y, a23.x, a23.y);
      const double z[4] = double[4](z01.x, z01.y, z23.x, z23.y);
      for (uint r = 0; r < 4; ++r) {
        for (uint c = 0; c < 4; ++c) {
          precise double prod = z[r] * a[c];
          acc[r][c] = acc[r][c] + prod;
        }
      }
      if (kMode == 5 && kk % 16u == 15u) barrier();
    }
    if (kMode == 2) barrier();
  }
  precise double sum = 0.0;
  for (uint r = 0; r < 4; ++r)
    for (uint c = 0; c < 4; ++c) sum = sum + acc[r][c];
  result[gl_GlobalInvocationID.x] = sum;
}
