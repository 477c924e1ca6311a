// One layer's sums (core_ref/scales/layer_sums.h: AddSpectrumSums, AddCarrierSums) in core_ref's
// order, so the sums are core_ref's bits given the same spectrum, band field and carriers:
//   spectrum, row-major over the half spectrum, modes with lo2 < k2 ≤ hi2:
//     wm = w·(re·re + im·im);  z ← z + wm;  e ← e + wm / k2 (k2 ≠ 0);  modes += w
//   cells, row-major:  t ← t + b·b;  o ← o + b·b on supp s*;  counts of supp s_0, supp s*, and
//     of supp s* ∩ supp coarser with equal / opposite signs.
// ONE workgroup: per tile of gl_WorkGroupSize.x items, every invocation loads one item and computes
// its per-item term (wm and wm / k2, or b·b and the item's flags: no sum, so any invocation gives
// the same bits) into shared memory; then invocation 0 adds the tile's terms in item order. The
// loads are parallel and coalesced, the additions one chain in core_ref's order (`precise`: no
// contraction).
// Bindings: 0 the field's spectrum, 1 the band field b, 2 s_0, 3 s*, 4 the coarser layer's s*,
// 5 the layer records. Push constants: ScalesLayerParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Spectrum { double spectrum[]; };
layout(std430, set = 0, binding = 1) readonly buffer Band { double b[]; };
layout(std430, set = 0, binding = 2) readonly buffer S0 { int s0[]; };
layout(std430, set = 0, binding = 3) readonly buffer S1 { int s1[]; };
layout(std430, set = 0, binding = 4) readonly buffer Coarser { int coarser[]; };
#include "scale_layer_record.glsl"  // ScaleLayerRecord
layout(std430, set = 0, binding = 5) buffer Records { LayerRecord records[]; };

#include "scales_layer_params.glsl"  // ScalesLayerParams

// Per item of the tile: two fp64 terms and flags.
//   spectrum: term0 = wm, term1 = wm / k2; flags bit 0 in band, bit 1 k2 != 0, bit 2 w = 1
//   cells:    term0 = b·b;                  flags bit 0 s_0 ≠ 0, bit 1 s* ≠ 0, bit 2 coarser ≠ 0
//                                           and agrees, bit 3 coarser ≠ 0 and disagrees
const uint kMaxTile = 1024u;
shared double term0[kMaxTile];
shared double term1[kMaxTile];
shared uint flags[kMaxTile];

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint tile = gl_WorkGroupSize.x;
  const uint hc = p.n / 2u + 1u;
  const uint entries = p.n * hc;
  precise double z = 0.0;
  precise double e = 0.0;
  uint64_t modes = 0ul;
  for (uint base = 0u; base < entries; base += tile) {
    const uint k = base + lid;
    uint f = 0u;
    double t0 = 0.0, t1 = 0.0;
    if (k < entries) {
      const uint i = k / hc, j = k % hc;
      const int ky = i < p.n / 2u ? int(i) : int(i) - int(p.n);
      const int k2 = int(j * j) + ky * ky;
      if (k2 > p.lo2 && k2 <= p.hi2) {
        const bool single = j == 0u || j == p.n / 2u;
        const double w = single ? 1.0 : 2.0;
        const double re = spectrum[2u * k], im = spectrum[2u * k + 1u];
        precise double m2 = re * re + im * im;
        precise double wm = w * m2;
        t0 = wm;
        f = 1u | (single ? 4u : 0u);
        if (k2 != 0) {
          precise double q = wm / double(k2);
          t1 = q;
          f |= 2u;
        }
      }
    }
    term0[lid] = t0;
    term1[lid] = t1;
    flags[lid] = f;
    barrier();
    if (lid == 0u) {
      const uint count = min(tile, entries - base);
      // Eight items read at a time (independent shared loads), then added in item order: the
      // same additions in the same order as one at a time.
      uint m = 0u;
      for (; m + 8u <= count; m += 8u) {
        double a8[8], q8[8];
        uint g8[8];
        [[unroll]] for (uint r = 0u; r < 8u; ++r) {
          g8[r] = flags[m + r];
          a8[r] = term0[m + r];
          q8[r] = term1[m + r];
        }
        [[unroll]] for (uint r = 0u; r < 8u; ++r) {
          if ((g8[r] & 1u) == 0u) continue;
          modes += (g8[r] & 4u) != 0u ? 1ul : 2ul;
          z = z + a8[r];
          if ((g8[r] & 2u) != 0u) e = e + q8[r];
        }
      }
      for (; m < count; ++m) {
        const uint g = flags[m];
        if ((g & 1u) == 0u) continue;
        modes += (g & 4u) != 0u ? 1ul : 2ul;
        z = z + term0[m];
        if ((g & 2u) != 0u) e = e + term1[m];
      }
    }
    barrier();
  }
  precise double t = 0.0;
  precise double o = 0.0;
  uint64_t before = 0ul, after = 0ul, agree = 0ul, disagree = 0ul;
  const uint cells = p.n * p.n;
  for (uint base = 0u; base < cells; base += tile) {
    const uint k = base + lid;
    if (k < cells) {
      const double v = b[k];
      precise double v2 = v * v;
      const int s = s1[k], c = coarser[k];
      uint f = s0[k] != 0 ? 1u : 0u;
      if (s != 0) {
        f |= 2u;
        if (c != 0) f |= c == s ? 4u : 8u;
      }
      term0[lid] = v2;
      flags[lid] = f;
    }
    barrier();
    if (lid == 0u) {
      const uint count = min(tile, cells - base);
      uint m = 0u;
      for (; m + 8u <= count; m += 8u) {
        double a8[8];
        uint g8[8];
        [[unroll]] for (uint r = 0u; r < 8u; ++r) {
          g8[r] = flags[m + r];
          a8[r] = term0[m + r];
        }
        [[unroll]] for (uint r = 0u; r < 8u; ++r) {
          t = t + a8[r];
          if ((g8[r] & 1u) != 0u) before += 1ul;
          if ((g8[r] & 2u) == 0u) continue;
          after += 1ul;
          o = o + a8[r];
          if ((g8[r] & 4u) != 0u) agree += 1ul;
          if ((g8[r] & 8u) != 0u) disagree += 1ul;
        }
      }
      for (; m < count; ++m) {
        const uint g = flags[m];
        t = t + term0[m];
        if ((g & 1u) != 0u) before += 1ul;
        if ((g & 2u) == 0u) continue;
        after += 1ul;
        o = o + term0[m];
        if ((g & 4u) != 0u) agree += 1ul;
        if ((g & 8u) != 0u) disagree += 1ul;
      }
    }
    barrier();
  }
  if (lid != 0u) return;
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
