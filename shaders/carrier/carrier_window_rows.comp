// Row pass of the separable periodic window sum (docs/MATH.md §1.1), one invocation per cell:
//   tmp(i, j) = Σ_{d=-r..r} in(i, (j + d) mod C)      (every offset counts, even on narrow grids)
// mode 0 (majority):     tmp.x = Σ s,           tmp.y = 0
// mode 1 (annihilation): tmp.x = #{s = +1},     tmp.y = #{s = -1}
// Integer sums are exact, so the order is free: the L = 2r+1 offsets cover L consecutive
// positions starting at j - r, i.e. floor(L / C) whole rows plus L mod C further cells. That keeps
// the work per cell below 2C for any radius. |sums| <= L <= 8193: no overflow.
#version 450

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { int cells[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Tmp { ivec2 tmp[]; };

#include "carrier_window_params.glsl"  // CarrierWindowParams

ivec2 Term(int v) {
  if (p.mode == kWindowModeMajority) return ivec2(v, 0);
  return ivec2(v > 0 ? 1 : 0, v < 0 ? 1 : 0);
}

void main() {
  const uint n = p.rows * p.cols;
  const uint k =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (k >= n) return;
  const uint c = p.cols;
  const uint i = k / c;
  const uint j = k - i * c;
  const uint base = i * c;
  const uint len = 2u * p.radius + 1u;
  const uint whole = len / c;
  const uint rest = len - whole * c;
  ivec2 s = ivec2(0);
  if (whole > 0u) {
    ivec2 row = ivec2(0);
    for (uint t = 0u; t < c; ++t) row += Term(cells[base + t]);
    s = int(whole) * row;
  }
  uint t = (j + c - (p.radius % c)) % c;  // (j - r) mod C without negative operands
  for (uint q = 0u; q < rest; ++q) {
    s += Term(cells[base + t]);
    t = (t + 1u == c) ? 0u : t + 1u;
  }
  tmp[k] = s;
}
