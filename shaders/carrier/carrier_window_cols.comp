// Column pass of the separable periodic window sum, fused with the kernel's decision (one
// invocation per cell):  S(i, j) = Σ_{d=-r..r} tmp((i + d) mod R, j), then
//   mode 0 (majority M(r, eta)):   out = 0 if s != 0 and s·S.x < eta, else s
//   mode 1 (annihilation K(r)):    out = 0 if S.x > 0 and S.y > 0 (both signs seen), else s
// exactly the tests of core_ref Majority / Annihilate. Integer sums (|S| <= (2r+1)^2 < 2^27).
#version 450

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { int cells[]; };
layout(std430, set = 0, binding = 1) readonly buffer Tmp { ivec2 tmp[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { int out_cells[]; };

#include "carrier_window_params.glsl"  // CarrierWindowParams

void main() {
  const uint n = p.rows * p.cols;
  const uint k =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (k >= n) return;
  const uint r = p.rows;
  const uint c = p.cols;
  const uint i = k / c;
  const uint j = k - i * c;
  const uint len = 2u * p.radius + 1u;
  const uint whole = len / r;
  const uint rest = len - whole * r;
  ivec2 s = ivec2(0);
  if (whole > 0u) {
    ivec2 col = ivec2(0);
    for (uint t = 0u; t < r; ++t) col += tmp[t * c + j];
    s = int(whole) * col;
  }
  uint t = (i + r - (p.radius % r)) % r;  // (i - radius) mod R without negative operands
  for (uint q = 0u; q < rest; ++q) {
    s += tmp[t * c + j];
    t = (t + 1u == r) ? 0u : t + 1u;
  }
  const int v = cells[k];
  int o = v;
  if (p.mode == kWindowModeMajority) {
    if (v != 0 && v * s.x < p.eta) o = 0;
  } else {
    if (s.x > 0 && s.y > 0) o = 0;
  }
  out_cells[k] = o;
}
