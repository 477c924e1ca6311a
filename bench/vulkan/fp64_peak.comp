// The fp64 multiply + add throughput a shader reaches on this device, under the contract (every
// multiply and add `precise`: separate instructions, no FMA) — the floor the batched rollout's
// GFLOP/s are compared with (docs/PERF.md). Fourteen loops, chosen by specialization constant 1
// (constant 0: the workgroup size; constant 2: TK, the term rows of the shared tiles, 32 unless
// the benchmark's --tk says otherwise):
//   mode 0: 16 independent chains per invocation in registers, acc ← acc·x + y;
//   mode 1: the batched rollout's inner loop without its global loads, barriers or tree: each
//           invocation 4×4 outputs of a 64×64 tile, the operands of each of TK term rows
//           loaded from shared memory as dvec2 pairs as the tiled kernel's vector loads do (pairs
//           tx and tx + 16 of the columns, ty and ty + 16 of the rows: a warp's loads are
//           contiguous), 16 multiplies and 16 adds per term row;
//   mode 2: mode 1 with a workgroup barrier after every TK term rows, at the end of the pass
//           (the tiled kernel has one per slice);
//   mode 3: mode 1 with 4 rows × 8 columns per invocation (32 chains; column pairs tx, tx + 16
//           and, again, (tx + 8) mod 16 and 16 + (tx + 8) mod 16);
//   mode 4: mode 1 with each invocation's column pairs adjacent (2tx, 2tx + 1) and row pairs
//           (2ty, 2ty + 1): a warp's column loads 32 bytes apart (more shared-memory wavefronts);
//   mode 5: mode 1 with a workgroup barrier after every 16 term rows (the tiled kernel's slice);
//   mode 6: mode 1 without shared memory or barriers: the operands loaded from a storage buffer
//           (binding 1, readonly: the L1 path) as a kernel without staging would take them from
//           A (row-major, a tile's 64 columns: column pairs tx and tx + 16 of term row k) and Z
//           (row-major, rows ty, ty + 16, ty + 32, ty + 48: one dvec2 holds terms k and k + 1 of
//           a row), 512 term rows per iteration (A's 64 columns and Z's 64 rows: 256 KiB each,
//           more than an SM's L1: L2 traffic as at D = 512; a workgroup of fewer than 256
//           invocations reads fewer of Z's rows); four dvec2 loads per term row (the module
//           still declares the shared tiles of the other modes: TK·1 KiB);
//   mode 7: mode 6 over the first 64 term rows only (64 KiB: the operands stay in L1);
//   mode 8: mode 5 with an execution-only workgroup barrier (controlBarrier without memory
//           semantics: not enough to hand shared data over; where the cost of barrier() lies);
//   mode 9: mode 5 with subgroupBarrier() (a warp's own barrier) instead of barrier();
//   mode 10: mode 1 with a workgroup barrier after every second pass (2·TK term rows);
//   mode 11: mode 5 with memoryBarrierShared() (the fence alone, no execution barrier);
//   mode 12: mode 5 with an execution barrier of Acquire semantics on shared memory only;
//   mode 13: mode 5 with an execution barrier of Release semantics on shared memory only.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kMode = 0;

layout(std430, set = 0, binding = 0) writeonly buffer Output { double result[]; };
// Modes 6, 7: A's tile, kOpRows term rows × 32 dvec2 (64 columns), then Z's, 64 rows × kOpRows
// doubles (kOpRows / 2 dvec2 a row).
layout(std430, set = 0, binding = 1) readonly restrict buffer Operands { dvec2 op[]; };
const uint kOpRows = 512;
layout(push_constant) uniform Params {
  double x;
  double y;
  uint iters;
} params;

layout(constant_id = 2) const uint kTk = 32;  // term rows in shared memory (modes 1-5, 8-13)
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
  if (kMode == 6 || kMode == 7) {
    const uint tx = t % 16, ty = t / 16;  // 16×16 invocations, each 4 columns × 4 rows
    const uint rows = kMode == 6 ? kOpRows : 64u;
    const uint z0 = kOpRows * 32u;  // Z's first dvec2
    precise double acc[4][4];
    for (uint r = 0; r < 4; ++r)
      for (uint c = 0; c < 4; ++c) acc[r][c] = 0.0;
    for (uint it = 0; it < params.iters; ++it) {
      for (uint k = 0; k < rows; k += 2u) {
        const dvec2 a01 = op[k * 32u + tx], a23 = op[k * 32u + 16u + tx];
        const dvec2 b01 = op[(k + 1u) * 32u + tx], b23 = op[(k + 1u) * 32u + 16u + tx];
        dvec2 z[4];
        for (uint r = 0; r < 4; ++r) z[r] = op[z0 + (ty + 16u * r) * (kOpRows / 2u) + k / 2u];
        const double a[4] = double[4](a01.x, a01.y, a23.x, a23.y);
        const double b[4] = double[4](b01.x, b01.y, b23.x, b23.y);
        for (uint r = 0; r < 4; ++r) {
          for (uint c = 0; c < 4; ++c) {
            precise double prod = z[r].x * a[c];
            acc[r][c] = acc[r][c] + prod;
          }
        }
        for (uint r = 0; r < 4; ++r) {
          for (uint c = 0; c < 4; ++c) {
            precise double prod = z[r].y * b[c];
            acc[r][c] = acc[r][c] + prod;
          }
        }
      }
    }
    precise double sum = 0.0;
    for (uint r = 0; r < 4; ++r)
      for (uint c = 0; c < 4; ++c) sum = sum + acc[r][c];
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
      if (kMode == 8 && kk % 16u == 15u) {
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsNone,
                       gl_SemanticsRelaxed);
      }
      if (kMode == 9 && kk % 16u == 15u) subgroupBarrier();
      if (kMode == 11 && kk % 16u == 15u) memoryBarrierShared();
      if (kMode == 12 && kk % 16u == 15u) {
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                       gl_SemanticsAcquire);
      }
      if (kMode == 13 && kk % 16u == 15u) {
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                       gl_SemanticsRelease);
      }
    }
    if (kMode == 2 || (kMode == 10 && it % 2u == 1u)) barrier();
  }
  precise double sum = 0.0;
  for (uint r = 0; r < 4; ++r)
    for (uint c = 0; c < 4; ++c) sum = sum + acc[r][c];
  result[gl_GlobalInvocationID.x] = sum;
}
