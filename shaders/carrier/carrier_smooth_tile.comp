// Both passes of the separable periodic smoothing (docs/MATH.md §1.2) in one dispatch: workgroup
// (x, y) owns the tile of rows [i0, i0 + TR) and columns [j0, j0 + TC) (i0 = y·TR, j0 = x·TC).
//   1. The pass along the rows for the TR + 2r rows (i0 − r + s) mod R, s = 0 .. TR + 2r − 1, of
//      the tile's columns, into shared memory (a row that wraps several times is computed again:
//      the same value).
//   2. The pass along the columns from there, for the tile's cells.
// Each value is carrier_smooth.comp's, i.e. core_ref Smooth's exact operation sequence:
//   s = 0.0;  for d = -r, ..., r:  s = s + w_d · in(line position (q + d) mod len);  out = s / W
// with w_d = 1.0 (box) or double(r + 1 - |d|) (triangle), every product and sum rounded on its own
// (`precise`), then ONE division by W; only where the row pass's results live differs (shared
// memory instead of a scratch field). Specialization constants: workgroup size (0), TR (1), TC
// (2), TR + 2r (3: the stage's rows, so the host checks its bytes against the device's limit).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kTileRows = 16u;
layout(constant_id = 2) const uint kTileCols = 64u;
layout(constant_id = 3) const uint kStageRows = 18u;

layout(std430, set = 0, binding = 0) readonly buffer In { double in_values[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { double out_values[]; };

#include "carrier_smooth_params.glsl"  // CarrierSmoothParams (axis unused)

shared double stage[kStageRows * kTileCols];

void main() {
  const uint i0 = gl_WorkGroupID.y * kTileRows;
  const uint j0 = gl_WorkGroupID.x * kTileCols;
  const int r = int(p.radius);
  const uint r_rows = p.radius % p.rows, r_cols = p.radius % p.cols;
  for (uint e = gl_LocalInvocationID.x; e < kStageRows * kTileCols; e += gl_WorkGroupSize.x) {
    const uint s = e / kTileCols;
    const uint j = j0 + (e - s * kTileCols);
    double v = 0.0;
    if (j < p.cols) {
      const uint base = ((i0 + s + p.rows - r_rows) % p.rows) * p.cols;  // row (i0 + s − r) mod R
      uint t = (j + p.cols - r_cols) % p.cols;                             // (j − r) mod C
      precise double acc = 0.0;
      for (int d = -r; d <= r; ++d) {
        const double w = (p.triangle != 0u) ? double(r + 1 - abs(d)) : 1.0;
        precise double term = w * in_values[base + t];
        acc = acc + term;
        t = (t + 1u == p.cols) ? 0u : t + 1u;
      }
      precise double result = acc / p.total;
      v = result;
    }
    stage[e] = v;
  }
  barrier();
  for (uint e = gl_LocalInvocationID.x; e < kTileRows * kTileCols; e += gl_WorkGroupSize.x) {
    const uint a = e / kTileCols;
    const uint c = e - a * kTileCols;
    const uint i = i0 + a, j = j0 + c;
    if (i >= p.rows || j >= p.cols) continue;
    // Stage row a + r + d holds row (i + d) mod R.
    precise double acc = 0.0;
    for (int d = -r; d <= r; ++d) {
      const double w = (p.triangle != 0u) ? double(r + 1 - abs(d)) : 1.0;
      precise double term = w * stage[(a + uint(r + d)) * kTileCols + c];
      acc = acc + term;
    }
    precise double result = acc / p.total;
    out_values[i * p.cols + j] = result;
  }
}
