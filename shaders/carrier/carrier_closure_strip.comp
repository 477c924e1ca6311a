// One closure step C = K_ann ∘ M of the strip-tiled closure (ClosureDispatch::kStrips,
// accel_vulkan/carrier/carrier_closure.h) for grids whose carrier does not fit one workgroup's
// shared memory: ONE dispatch per step in place of the multi-dispatch path's four window passes
// and level-rows pass. Workgroup g owns the strip of kStripRows whole rows i0 = g·kStripRows ..
// i0 + kStripRows − 1 and works on a tile with halos:
//   load  s on rows i0 − H .. i0 + kStripRows − 1 + H (H = r_m + r_a, rows wrapped periodically)
//         into shared bit planes (bit j%32 of word (row, j/32): the cell is +1 / is −1), read as
//         ivec4 from the input iterate;
//   M     m = M(r_m, η)(s) on rows i0 − r_a .. i0 + kStripRows − 1 + r_a (the halo K needs), each
//         cell from the signed window sum S = #(+1) − #(−1) of its (2r_m+1)² window, counted with
//         bitCount as carrier_closure_shared.comp does;
//   K     out = K_ann(r_a)(m) on the strip's own rows (a cell dies where the OR-dilations of both
//         planes cover it), written as ivec4 to the output iterate; per row the active cells and
//         the cells changed against s (exact integer counts);
//   sum   Σ|field| over the support of out, each row from 0.0 in increasing j by one invocation,
//         `precise`, from the strip's field rows staged in shared memory — exactly
//         carrier_level_rows' sum (docs/MATH.md §1.2) — into one CarrierRowPartial per row.
// carrier_closure_reduce.comp then adds the rows in increasing i and runs the control. The halo
// rows are recomputed by both neighbouring strips (M is cheap bit work; s is only read).
// Once the closure is finished (the control zeroed the dispatch arguments) the dispatch returns
// at once, writing nothing, as the multi-dispatch path's empty indirect dispatches.
// Restrictions (PlanClosureDispatch checks them): cols a multiple of 32; radii ≤ 15 (a window's
// row lies within the word and its two neighbours). Every window offset counts, even on grids
// narrower or shorter than the window (rows are wrapped with a full unsigned modulo), as
// core_ref's window sums.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kStripRows = 4u;
layout(constant_id = 2) const uint kWordsPerRow = 32u;  // cols / 32
layout(constant_id = 3) const uint kHalo = 2u;          // r_m + r_a
layout(constant_id = 4) const uint kAnnRadius = 1u;     // r_a

layout(std430, set = 0, binding = 0) readonly buffer In { ivec4 in4[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { ivec4 out4[]; };
layout(std430, set = 0, binding = 2) readonly buffer Field { dvec4 field4[]; };

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 3) writeonly buffer Rows { RowPartial rows_out[]; };

// Mirrored by CarrierClosureControl (read only: its dispatch arguments say whether the closure
// is finished).
layout(std430, set = 0, binding = 4) readonly buffer Control {
  uint depth;
  uint converged;
  uint steps;
  uint pad;
  uvec4 args[3];
} ctl;

#include "carrier_closure_shared_params.glsl"  // CarrierClosureSharedParams (max_iterations unused)

const uint kTileRows = kStripRows + 2u * kHalo;
const uint kMidRows = kStripRows + 2u * kAnnRadius;
shared uint s_pos[kTileRows * kWordsPerRow];  // s on the tile (halo H)
shared uint s_neg[kTileRows * kWordsPerRow];
shared uint m_pos[kMidRows * kWordsPerRow];   // M(s) on the strip and halo r_a
shared uint m_neg[kMidRows * kWordsPerRow];
shared uint o_bits[kStripRows * kWordsPerRow];  // the support of out
shared double f_rows[kStripRows * kWordsPerRow * 32u];  // the strip's field rows
shared uint row_active[kStripRows];
shared uint row_changed[kStripRows];

// The 96 cells around word (tile row k, wj) of a plane: low 64 bits = left | word << 32, high 64
// bits = word | right << 32 (the neighbours wrap within the row).
u64vec2 Strip(bool m, bool neg, uint k, uint wj) {
  const uint w = kWordsPerRow;
  const uint base = k * w;
  const uint l = base + (wj == 0u ? w - 1u : wj - 1u);
  const uint c = base + wj;
  const uint r = base + (wj + 1u == w ? 0u : wj + 1u);
  uint lw, cw, rw;
  if (m) {
    lw = neg ? m_neg[l] : m_pos[l];
    cw = neg ? m_neg[c] : m_pos[c];
    rw = neg ? m_neg[r] : m_pos[r];
  } else {
    lw = neg ? s_neg[l] : s_pos[l];
    cw = neg ? s_neg[c] : s_pos[c];
    rw = neg ? s_neg[r] : s_pos[r];
  }
  return u64vec2(uint64_t(lw) | (uint64_t(cw) << 32), uint64_t(cw) | (uint64_t(rw) << 32));
}

// The 2r+1 window bits of cell b (bits b−r .. b+r of the word, neighbours included), low bit first.
uint WindowBits(u64vec2 strip, uint b, uint radius) {
  const uint mask = (1u << (2u * radius + 1u)) - 1u;
  if (b < radius) return uint(strip.x >> (32u + b - radius)) & mask;
  return uint(strip.y >> (b - radius)) & mask;
}

// Bits of the word whose cell has a set cell at horizontal offset −r..r (one row's dilation).
uint Dilate(u64vec2 strip, uint radius) {
  uint d = 0u;
  for (int dx = -int(radius); dx <= int(radius); ++dx) {
    d |= dx >= 0 ? uint(strip.y >> uint(dx)) : uint(strip.x >> uint(32 + dx));
  }
  return d;
}

// M(r_m, η) of s's word at tile row k into m's word at mid row q (k = q + r_m).
void MajorityWord(uint q, uint wj) {
  const uint k = q + p.majority_radius;
  const int rm = int(p.majority_radius);
  const uint pos = s_pos[k * kWordsPerRow + wj], neg = s_neg[k * kWordsPerRow + wj];
  uint keep = 0u;
  uint bits = pos | neg;  // zero cells stay zero: only the support is visited
  if (rm == 1) {
    const u64vec2 p0 = Strip(false, false, k - 1u, wj), n0 = Strip(false, true, k - 1u, wj);
    const u64vec2 p1 = Strip(false, false, k, wj), n1 = Strip(false, true, k, wj);
    const u64vec2 p2 = Strip(false, false, k + 1u, wj), n2 = Strip(false, true, k + 1u, wj);
    while (bits != 0u) {
      const uint b = uint(findLSB(bits));
      bits &= bits - 1u;
      const int plus = bitCount(WindowBits(p0, b, 1u)) + bitCount(WindowBits(p1, b, 1u)) +
                       bitCount(WindowBits(p2, b, 1u));
      const int minus = bitCount(WindowBits(n0, b, 1u)) + bitCount(WindowBits(n1, b, 1u)) +
                        bitCount(WindowBits(n2, b, 1u));
      const int v = ((pos >> b) & 1u) != 0u ? 1 : -1;
      if (v * (plus - minus) >= p.eta) keep |= 1u << b;
    }
  } else {
    while (bits != 0u) {
      const uint b = uint(findLSB(bits));
      bits &= bits - 1u;
      int sum = 0;
      for (int dy = -rm; dy <= rm; ++dy) {
        const uint kk = uint(int(k) + dy);
        sum += bitCount(WindowBits(Strip(false, false, kk, wj), b, uint(rm))) -
               bitCount(WindowBits(Strip(false, true, kk, wj), b, uint(rm)));
      }
      const int v = ((pos >> b) & 1u) != 0u ? 1 : -1;
      if (v * sum >= p.eta) keep |= 1u << b;
    }
  }
  m_pos[q * kWordsPerRow + wj] = pos & keep;
  m_neg[q * kWordsPerRow + wj] = neg & keep;
}

void main() {
  const uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint i0 = g * kStripRows;
  // Whole workgroups return here: the barriers below stay in uniform control flow.
  if (i0 >= p.rows) return;
  if (ctl.args[2].x == 0u) return;  // the closure is finished: this step is empty
  const uint t = gl_LocalInvocationID.x;
  const uint stride = gl_WorkGroupSize.x;
  const uint W = kWordsPerRow;
  const uint ra = kAnnRadius;
  const uint own = min(kStripRows, p.rows - i0);  // rows of the strip inside the grid

  if (t < kStripRows) {
    row_active[t] = 0u;
    row_changed[t] = 0u;
  }
  // s on the tile, rows wrapped: tile row k is grid row (i0 − H + k) mod R, taken as
  // (i0 + lift − H + k) mod R with lift a multiple of R ≥ H, so every operand is unsigned (GLSL
  // leaves % of a negative operand undefined: NVIDIA's result differs from C's) and any radius
  // wraps against any number of rows.
  const uint lift = ((kHalo + p.rows - 1u) / p.rows) * p.rows;
  for (uint w = t; w < kTileRows * W; w += stride) {
    const uint k = w / W;
    const uint wj = w - k * W;
    const uint row = (i0 + lift - kHalo + k) % p.rows;
    const uint base = row * p.cols + wj * 32u;
    uint pos = 0u, neg = 0u;
    [[unroll]] for (uint q = 0u; q < 8u; ++q) {
      const ivec4 c = in4[base / 4u + q];
      [[unroll]] for (uint e = 0u; e < 4u; ++e) {
        const uint b = 4u * q + e;
        if (c[e] > 0) pos |= 1u << b;
        if (c[e] < 0) neg |= 1u << b;
      }
    }
    s_pos[w] = pos;
    s_neg[w] = neg;
  }
  // The strip's field rows (coalesced), for the row sums.
  if (p.has_field != 0u) {
    const uint n4 = own * p.cols / 4u;
    for (uint k = t; k < n4; k += stride) {
      const dvec4 f = field4[i0 * p.cols / 4u + k];
      f_rows[4u * k] = f.x;
      f_rows[4u * k + 1u] = f.y;
      f_rows[4u * k + 2u] = f.z;
      f_rows[4u * k + 3u] = f.w;
    }
  }
  barrier();

  // M on the strip and its r_a halo.
  for (uint w = t; w < kMidRows * W; w += stride) {
    const uint q = w / W;
    MajorityWord(q, w - q * W);
  }
  barrier();

  // K_ann on the strip's own rows; out written, the support kept for the sums.
  for (uint w = t; w < kStripRows * W; w += stride) {
    const uint o = w / W;
    if (o >= own) continue;
    const uint wj = w - o * W;
    const uint q = o + ra;  // mid row of the output row
    uint has_pos = 0u, has_neg = 0u;
    for (int dy = -int(ra); dy <= int(ra); ++dy) {
      const uint qq = uint(int(q) + dy);
      has_pos |= Dilate(Strip(true, false, qq, wj), ra);
      has_neg |= Dilate(Strip(true, true, qq, wj), ra);
    }
    const uint kill = has_pos & has_neg;
    const uint op = m_pos[q * W + wj] & ~kill;
    const uint on = m_neg[q * W + wj] & ~kill;
    const uint k = o + kHalo;  // tile row of the output row
    const uint changed = (op ^ s_pos[k * W + wj]) | (on ^ s_neg[k * W + wj]);
    if (changed != 0u) atomicAdd(row_changed[o], bitCount(changed));
    const uint bits = op | on;
    if (bits != 0u) atomicAdd(row_active[o], bitCount(bits));
    o_bits[w] = bits;
    const uint base = (i0 + o) * p.cols + wj * 32u;
    [[unroll]] for (uint qv = 0u; qv < 8u; ++qv) {
      ivec4 c;
      [[unroll]] for (uint e = 0u; e < 4u; ++e) {
        const uint b = 4u * qv + e;
        c[e] = ((op >> b) & 1u) != 0u ? 1 : (((on >> b) & 1u) != 0u ? -1 : 0);
      }
      out4[base / 4u + qv] = c;
    }
  }
  barrier();

  // One invocation per row: Σ|field| over the support of out from 0.0 in increasing j.
  if (t < own) {
    precise double sum = 0.0;
    if (p.has_field != 0u) {
      for (uint wj = 0u; wj < W; ++wj) {
        const uint bits = o_bits[t * W + wj];
        if (bits == 0u) continue;
        const uint base = (t * W + wj) * 32u;
        // Eight values read at a time (independent shared loads), then added in increasing j:
        // the same additions in the same order as one at a time.
        [[unroll]] for (uint q8 = 0u; q8 < 4u; ++q8) {
          double v[8];
          [[unroll]] for (uint e = 0u; e < 8u; ++e) v[e] = f_rows[base + 8u * q8 + e];
          [[unroll]] for (uint e = 0u; e < 8u; ++e) {
            if (((bits >> (8u * q8 + e)) & 1u) != 0u) {
              precise double a = abs(v[e]);
              sum = sum + a;
            }
          }
        }
      }
    }
    RowPartial r;
    r.sum = sum;
    r.maxabs = 0.0;
    r.c0 = uint64_t(row_active[t]);
    r.c1 = uint64_t(row_changed[t]);
    rows_out[i0 + t] = r;
  }
}
