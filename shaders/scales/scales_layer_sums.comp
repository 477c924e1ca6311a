// One layer's sums (core_ref/scales/layer_sums.h: AddSpectrumSums, AddCarrierSums) in ONE
// invocation, in core_ref's order, so the sums are core_ref's bits given the same spectrum, band
// field and carriers (`precise`: no contraction):
//   spectrum, row-major over the half spectrum, modes with lo2 < k2 ≤ hi2:
//     wm = w·(re·re + im·im);  z ← z + wm;  e ← e + wm / k2 (k2 ≠ 0);  modes += w
//   cells, row-major:  t ← t + b·b;  o ← o + b·b on supp s*;  counts of supp s_0, supp s*, and
//     of supp s* ∩ supp coarser with equal / opposite signs.
// Dispatched as one workgroup; every invocation but the first returns at once.
// Bindings: 0 the field's spectrum, 1 the band field b, 2 s_0, 3 s*, 4 the coarser layer's s*,
// 5 the layer records. Push constants: ScalesLayerParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Spectrum { double spectrum[]; };
layout(std430, set = 0, binding = 1) readonly buffer Band { double b[]; };
layout(std430, set = 0, binding = 2) readonly buffer S0 { int s0[]; };
layout(std430, set = 0, binding = 3) readonly buffer S1 { int s1[]; };
layout(std430, set = 0, binding = 4) readonly buffer Coarser { int coarser[]; };
#include "scale_layer_record.glsl"  // ScaleLayerRecord
layout(std430, set = 0, binding = 5) buffer Records { LayerRecord records[]; };

#include "scales_layer_params.glsl"  // ScalesLayerParams

void main() {
  if (gl_GlobalInvocationID.x != 0u || gl_GlobalInvocationID.y != 0u) return;
  const uint hc = p.n / 2u + 1u;
  precise double z = 0.0;
  precise double e = 0.0;
  uint64_t modes = 0ul;
  for (uint i = 0u; i < p.n; ++i) {
    const int ky = i < p.n / 2u ? int(i) : int(i) - int(p.n);
    for (uint j = 0u; j < hc; ++j) {
      const int k2 = int(j * j) + ky * ky;
      if (!(k2 > p.lo2 && k2 <= p.hi2)) continue;
      const bool single = j == 0u || j == p.n / 2u;
      const double w = single ? 1.0 : 2.0;
      const uint at = 2u * (i * hc + j);
      const double re = spectrum[at], im = spectrum[at + 1u];
      precise double m2 = re * re + im * im;
      precise double wm = w * m2;
      modes += single ? 1ul : 2ul;
      z = z + wm;
      if (k2 != 0) {
        precise double q = wm / double(k2);
        e = e + q;
      }
    }
  }
  precise double t = 0.0;
  precise double o = 0.0;
  uint64_t before = 0ul, after = 0ul, agree = 0ul, disagree = 0ul;
  const uint cells = p.n * p.n;
  for (uint k = 0u; k < cells; ++k) {
    const double v = b[k];
    precise double v2 = v * v;
    t = t + v2;
    if (s0[k] != 0) before += 1ul;
    const int s = s1[k];
    if (s == 0) continue;
    after += 1ul;
    o = o + v2;
    const int c = coarser[k];
    if (c == 0) continue;
    if (c == s) {
      agree += 1ul;
    } else {
      disagree += 1ul;
    }
  }
  records[p.slot].enstrophy_sum = z;
  records[p.slot].energy_sum = e;
  records[p.slot].band_total = t;
  records[p.slot].on_support = o;
  records[p.slot].modes = modes;
  records[p.slot].active_before = before;
  records[p.slot].active_after = after;
  records[p.slot].agree = agree;
  records[p.slot].disagree = disagree;
}
