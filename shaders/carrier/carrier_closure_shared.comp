// The whole closure s* of C = K_ann ∘ M in ONE dispatch of ONE workgroup (accel_vulkan/carrier/
// carrier_closure.h, ClosureDispatch::kSharedMemory): the carrier lives in workgroup shared memory
// as two bit planes (bit j%32 of word (i, j/32): cell (i, j) is +1 / is −1), and the iteration runs
// to core_ref Closure's end inside the shader, with barriers between its phases:
//   M   m = M(r_m, η)(s): per cell the signed window sum S = #(+1) − #(−1) over the (2r+1)² periodic
//       window, counted with bitCount on the window's bits of each of the 2r+1 rows (r_m = 1:
//       bit-parallel, all 32 cells of a word at once by full adders over bit planes);
//   K   out = K_ann(r_a)(m): bit-parallel, a cell dies when the OR-dilations of both planes of m
//       cover it; out is compared with s (cells changed, exact) and becomes s, except on the cap's
//       check step (step = max_iterations), whose output is never adopted;
//   stats  level statistics of the new s into levels[step + 1], exactly carrier_level_rows +
//       carrier_reduce_rows: active cells and cells changed (exact integer counts), Σ|field| over
//       the support — each row from 0.0 in increasing j (one invocation per row, or, where every
//       invocation owns one word, the row's chain passed from word owner to word owner with the
//       values held in registers), the rows then from 0.0 in increasing i (invocation 0),
//       `precise`, mean = Σ / active (docs/MATH.md §1.2);
//   control  as carrier_closure_control: a step that changed nothing converges, a changing step
//       below the cap deepens, the check step ends it.
// Level 0 (s_0 itself, nothing changed) goes to levels[0] first. The check step's slot holds its
// output's counts with sum = mean = 0 (it is never a level). s_0 is read from, and s* at the end
// written to, `Iterate` (the closure's fixed-point iterate); the control record is left as the
// multi-dispatch path leaves it (the dispatch arguments zeroed).
// Restrictions (the host checks them and otherwise records the multi-dispatch path): cols a
// multiple of 32; radii ≤ 15 (a window's row then lies within the word and its two neighbours)
// and ≤ rows (one wrap correction per row index); the planes fit the device's shared memory.
// Every window offset counts, even on grids narrower than the window, as core_ref's window sums.
// Integer work only, except the statistics' sums and division.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kWords = 1u;  // rows · cols / 32: the words of one plane
layout(constant_id = 2) const uint kRows = 1u;

// s_0 in, s* out: every invocation reads and later writes the cells of the same words only.
// Read and written as ivec4 / dvec4: an invocation's word is 32 consecutive cells (128 B of cells,
// 256 B of field), so 16- and 32-byte accesses cut its memory requests fourfold (a word's first
// cell index is a multiple of 32: aligned).
layout(std430, set = 0, binding = 0) buffer Iterate { ivec4 cells4[]; };
layout(std430, set = 0, binding = 1) readonly buffer Field { dvec4 field4[]; };

#include "carrier_totals.glsl"  // CarrierTotals
layout(std430, set = 0, binding = 2) buffer Levels { Totals levels[]; };

// Mirrored by CarrierClosureControl.
layout(std430, set = 0, binding = 3) buffer Control {
  uint depth;
  uint converged;
  uint steps;
  uint pad;
  uvec4 args[3];
} ctl;

#include "carrier_closure_shared_params.glsl"  // CarrierClosureSharedParams

shared uint s_pos[kWords];  // the iterate s
shared uint s_neg[kWords];
shared uint m_pos[kWords];  // M(s)
shared uint m_neg[kWords];
shared double row_sum[kRows];
// Cell counts, split over 32 slots (invocation t adds into slot t % 32): the invocations of a
// subgroup never contend for one address; invocation 0 adds the slots (integers: any order).
const uint kCountSlots = 32u;
shared uint active_part[kCountSlots];
shared uint changed_part[kCountSlots];

uint ActiveTotal() {
  uint n = 0u;
  [[unroll]] for (uint k = 0u; k < kCountSlots; ++k) n += active_part[k];
  return n;
}

uint ChangedTotal() {
  uint n = 0u;
  [[unroll]] for (uint k = 0u; k < kCountSlots; ++k) n += changed_part[k];
  return n;
}
shared uint finished;

uint WrapRow(int i) {  // radius ≤ rows: one correction
  const int r = int(p.rows);
  return uint(i < 0 ? i + r : (i >= r ? i - r : i));
}

// The 96 cells around word (row, wj) of a plane: the low 64 bits = left word | word << 32, the high
// 64 bits = word | right word << 32 (the neighbours wrap within the row).
u64vec2 Strip(bool m, bool neg, uint row, uint wj) {
  const uint w = p.words_per_row;
  const uint base = row * w;
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

// Bits of the word whose cell has a set cell at horizontal offset −r..r (the dilation of one row).
uint Dilate(u64vec2 strip, uint radius) {
  uint d = 0u;
  for (int dx = -int(radius); dx <= int(radius); ++dx) {
    d |= dx >= 0 ? uint(strip.y >> uint(dx)) : uint(strip.x >> uint(32 + dx));
  }
  return d;
}

// M(r_m, η) of word w of s into m.
void MajorityWord(uint w) {
  const uint row = w / p.words_per_row;
  const uint wj = w - row * p.words_per_row;
  const uint rm = p.majority_radius;
  int sum[32];
  for (uint b = 0u; b < 32u; ++b) sum[b] = 0;
  for (int dy = -int(rm); dy <= int(rm); ++dy) {
    const uint rr = WrapRow(int(row) + dy);
    const u64vec2 sp = Strip(false, false, rr, wj);
    const u64vec2 sn = Strip(false, true, rr, wj);
    for (uint b = 0u; b < 32u; ++b) {
      sum[b] += bitCount(WindowBits(sp, b, rm)) - bitCount(WindowBits(sn, b, rm));
    }
  }
  const uint pos = s_pos[w], neg = s_neg[w];
  uint keep = 0u;
  for (uint b = 0u; b < 32u; ++b) {
    const int v = ((pos >> b) & 1u) != 0u ? 1 : (((neg >> b) & 1u) != 0u ? -1 : 0);
    if (v != 0 && v * sum[b] >= p.eta) keep |= 1u << b;
  }
  m_pos[w] = pos & keep;
  m_neg[w] = neg & keep;
}

// The same for r_m = 1 (the decoder's), bit-parallel: for all 32 cells of the word at once, the
// counts P = #(+1) and M = #(−1) in the 3×3 window are added up as 4 bit planes (a full-adder tree
// over the window's 9 shifted words of each plane), and v·(P − M) ≥ η is decided by comparing
// P + (15 − M) (positive cells) and M + (15 − P) (negative cells) with η + 15, again as bit
// planes. Integer logic only: exactly the per-cell window sums' decisions.
void FullAdd(uint a, uint b, uint c, out uint s, out uint carry) {
  const uint ab = a ^ b;
  s = ab ^ c;
  carry = (a & b) | (c & ab);
}

// Row rr's window bits of word wj's cells: at offsets −1 (l), 0 (c), +1 (r), wrapping in the row.
void Neighbours(bool neg, uint rr, uint wj, out uint l, out uint c, out uint r) {
  const uint w = p.words_per_row;
  const uint base = rr * w;
  const uint li = base + (wj == 0u ? w - 1u : wj - 1u);
  const uint ri = base + (wj + 1u == w ? 0u : wj + 1u);
  const uint lw = neg ? s_neg[li] : s_pos[li];
  c = neg ? s_neg[base + wj] : s_pos[base + wj];
  const uint rw = neg ? s_neg[ri] : s_pos[ri];
  l = (c << 1) | (lw >> 31);
  r = (c >> 1) | (rw << 31);
}

// The 3×3 window counts (0..9) of one plane around every cell of word wj, as bits q[0..3].
void WindowCount(bool neg, uint up, uint row, uint down, uint wj, out uint q[4]) {
  uint a0, a1, a2, b0, b1, b2, c0, c1, c2;
  Neighbours(neg, up, wj, a0, a1, a2);
  Neighbours(neg, row, wj, b0, b1, b2);
  Neighbours(neg, down, wj, c0, c1, c2);
  uint sa, ca, sb, cb, sc, cc, s1, c1x, s2, c2x;
  FullAdd(a0, a1, a2, sa, ca);   // weight 1 sums, weight 2 carries
  FullAdd(b0, b1, b2, sb, cb);
  FullAdd(c0, c1, c2, sc, cc);
  FullAdd(sa, sb, sc, s1, c1x);  // bit 0; c1x weight 2
  FullAdd(ca, cb, cc, s2, c2x);  // weight 2 sum, c2x weight 4
  q[0] = s1;
  q[1] = s2 ^ c1x;
  const uint c3 = s2 & c1x;      // weight 4
  q[2] = c2x ^ c3;
  q[3] = c2x & c3;
}

// The cells where x + (15 − y) ≥ t, with x, y 4-bit plane counts and 0 < t ≤ 31.
uint AtLeast(uint x[4], uint y[4], uint t) {
  uint sum[5];
  uint carry = 0u;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const uint yi = ~y[i];
    const uint xy = x[i] ^ yi;
    sum[i] = xy ^ carry;
    carry = (x[i] & yi) | (carry & xy);
  }
  sum[4] = carry;
  uint borrow = 0u;  // of sum − t: none means sum ≥ t
  [[unroll]] for (uint i = 0u; i < 5u; ++i) {
    borrow = ((t >> i) & 1u) != 0u ? (~sum[i] | borrow) : (~sum[i] & borrow);
  }
  return ~borrow;
}

void MajorityWordRadius1(uint w) {
  const uint row = w / p.words_per_row;
  const uint wj = w - row * p.words_per_row;
  const uint up = WrapRow(int(row) - 1), down = WrapRow(int(row) + 1);
  const uint pos = s_pos[w], neg = s_neg[w];
  uint plus[4], minus[4];
  WindowCount(false, up, row, down, wj, plus);
  WindowCount(true, up, row, down, wj, minus);
  // v·S ranges over [−9, 9]: η beyond it keeps every cell or none.
  uint keep_pos, keep_neg;
  if (p.eta > 9) {
    keep_pos = 0u;
    keep_neg = 0u;
  } else if (p.eta < -9) {
    keep_pos = ~0u;
    keep_neg = ~0u;
  } else {
    const uint t = uint(p.eta + 15);  // 6..24
    keep_pos = AtLeast(plus, minus, t);
    keep_neg = AtLeast(minus, plus, t);
  }
  m_pos[w] = pos & keep_pos;
  m_neg[w] = neg & keep_neg;
}

// Σ|field| over the support of s in row i, from 0.0 in increasing j. Each word's 32 values are
// loaded together first (independent loads: one memory latency a word, not one a cell), then the
// supported ones added in increasing j — the same additions in the same order as one at a time.
void RowSum(uint i) {
  precise double sum = 0.0;
  for (uint wj = 0u; wj < p.words_per_row; ++wj) {
    const uint w = i * p.words_per_row + wj;
    const uint bits = s_pos[w] | s_neg[w];
    if (bits == 0u) continue;
    const uint base = i * p.cols + wj * 32u;
    double v[32];
    [[unroll]] for (uint q = 0u; q < 8u; ++q) {
      const dvec4 f = field4[base / 4u + q];
      v[4u * q] = f.x;
      v[4u * q + 1u] = f.y;
      v[4u * q + 2u] = f.z;
      v[4u * q + 3u] = f.w;
    }
    [[unroll]] for (uint b = 0u; b < 32u; ++b) {
      if (((bits >> b) & 1u) != 0u) {
        precise double a = abs(v[b]);
        sum = sum + a;
      }
    }
  }
  row_sum[i] = sum;
}

// The same sums where every invocation owns at most one word (words ≤ the workgroup): invocation
// t keeps word t's 32 |field| values in registers for the whole closure (loaded once, `owned`),
// and a row's chain runs through its words' owners in increasing j — owner of word 0 adds its
// supported cells to row_sum[i] (from 0.0), then, after a barrier, the owner of word 1, and so on.
// The same additions in the same order as RowSum, with no field load per step.
void RowSumsOwned(uint t, uint words, in double owned[32]) {
  if (p.has_field == 0u) return;
  for (uint i = t; i < p.rows; i += gl_WorkGroupSize.x) row_sum[i] = 0.0;
  barrier();
  for (uint k = 0u; k < p.words_per_row; ++k) {
    if (t < words && t % p.words_per_row == k) {
      const uint row = t / p.words_per_row;
      const uint bits = s_pos[t] | s_neg[t];
      precise double sum = row_sum[row];
      [[unroll]] for (uint b = 0u; b < 32u; ++b) {
        if (((bits >> b) & 1u) != 0u) sum = sum + owned[b];
      }
      row_sum[row] = sum;
    }
    barrier();
  }
}

void RowSums() {
  if (p.has_field == 0u) return;
  for (uint i = gl_LocalInvocationID.x; i < p.rows; i += gl_WorkGroupSize.x) RowSum(i);
}

// Invocation 0, after RowSums: the rows in increasing i, the record of `slot`.
void WriteLevel(uint slot, bool with_sum, uint active_cells, uint changed_cells) {
  precise double sum = 0.0;
  if (with_sum && p.has_field != 0u) {
    // Eight row sums read at a time, then added in increasing i (the same chain of additions).
    uint i = 0u;
    for (; i + 8u <= p.rows; i += 8u) {
      double r[8];
      [[unroll]] for (uint k = 0u; k < 8u; ++k) r[k] = row_sum[i + k];
      [[unroll]] for (uint k = 0u; k < 8u; ++k) sum = sum + r[k];
    }
    for (; i < p.rows; ++i) sum = sum + row_sum[i];
  }
  const uint64_t c0 = uint64_t(active_cells);
  precise double mean = 0.0;
  if (with_sum && p.has_field != 0u && c0 > 0ul) mean = sum / double(c0);
  levels[slot].sum = sum;
  levels[slot].maxabs = 0.0;
  levels[slot].mean = mean;
  levels[slot].c0 = c0;
  levels[slot].c1 = uint64_t(changed_cells);
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint stride = gl_WorkGroupSize.x;
  const uint words = p.rows * p.words_per_row;
  for (uint w = t; w < words; w += stride) {
    const uint row = w / p.words_per_row;
    const uint base = row * p.cols + (w - row * p.words_per_row) * 32u;
    uint pos = 0u, neg = 0u;
    [[unroll]] for (uint q = 0u; q < 8u; ++q) {
      const ivec4 c = cells4[base / 4u + q];
      [[unroll]] for (uint e = 0u; e < 4u; ++e) {
        const uint b = 4u * q + e;
        if (c[e] > 0) pos |= 1u << b;
        if (c[e] < 0) neg |= 1u << b;
      }
    }
    s_pos[w] = pos;
    s_neg[w] = neg;
  }
  // One word per invocation: its |field| values held in registers (RowSumsOwned).
  const bool owns = words <= stride;
  double owned[32];
  [[unroll]] for (uint b = 0u; b < 32u; ++b) owned[b] = 0.0;
  if (owns && p.has_field != 0u && t < words) {
    const uint row = t / p.words_per_row;
    const uint base = row * p.cols + (t - row * p.words_per_row) * 32u;
    [[unroll]] for (uint q = 0u; q < 8u; ++q) {
      const dvec4 f = field4[base / 4u + q];
      precise double a0 = abs(f.x), a1 = abs(f.y), a2 = abs(f.z), a3 = abs(f.w);
      owned[4u * q] = a0;
      owned[4u * q + 1u] = a1;
      owned[4u * q + 2u] = a2;
      owned[4u * q + 3u] = a3;
    }
  }
  if (t < kCountSlots) {
    active_part[t] = 0u;
    changed_part[t] = 0u;
  }
  if (t == 0u) finished = 0u;
  barrier();

  // Level 0.
  for (uint w = t; w < words; w += stride) {
    atomicAdd(active_part[t % kCountSlots], bitCount(s_pos[w] | s_neg[w]));
  }
  if (owns) {
    RowSumsOwned(t, words, owned);
  } else {
    RowSums();
  }
  barrier();
  if (t == 0u) {
    WriteLevel(0u, true, ActiveTotal(), 0u);
    for (uint k = 0u; k < kCountSlots; ++k) active_part[k] = 0u;
  }
  barrier();

  uint depth = 0u;
  for (uint step = 0u;; ++step) {
    if (p.majority_radius == 1u) {
      for (uint w = t; w < words; w += stride) MajorityWordRadius1(w);
    } else {
      for (uint w = t; w < words; w += stride) MajorityWord(w);
    }
    barrier();

    const uint ra = p.annihilation_radius;
    const bool adopt = step < p.max_iterations;  // the check step's output is never s*
    for (uint w = t; w < words; w += stride) {
      const uint row = w / p.words_per_row;
      const uint wj = w - row * p.words_per_row;
      uint has_pos = 0u, has_neg = 0u;
      for (int dy = -int(ra); dy <= int(ra); ++dy) {
        const uint rr = WrapRow(int(row) + dy);
        has_pos |= Dilate(Strip(true, false, rr, wj), ra);
        has_neg |= Dilate(Strip(true, true, rr, wj), ra);
      }
      const uint kill = has_pos & has_neg;
      const uint op = m_pos[w] & ~kill;
      const uint on = m_neg[w] & ~kill;
      const uint changed = (op ^ s_pos[w]) | (on ^ s_neg[w]);
      if (changed != 0u) atomicAdd(changed_part[t % kCountSlots], bitCount(changed));
      atomicAdd(active_part[t % kCountSlots], bitCount(op | on));
      if (adopt) {
        s_pos[w] = op;
        s_neg[w] = on;
      }
    }
    barrier();

    if (adopt) {
      if (owns) {
        RowSumsOwned(t, words, owned);
      } else {
        RowSums();
      }
    }
    barrier();
    if (t == 0u) {
      const uint changed_cells = ChangedTotal();
      WriteLevel(step + 1u, adopt, ActiveTotal(), changed_cells);
      const bool changed = changed_cells != 0u;
      if (changed && adopt) depth += 1u;
      ctl.steps = step + 1u;
      ctl.depth = depth;
      if (!changed) ctl.converged = 1u;
      finished = (!changed || !adopt) ? 1u : 0u;
      for (uint k = 0u; k < kCountSlots; ++k) {
        active_part[k] = 0u;
        changed_part[k] = 0u;
      }
    }
    barrier();
    if (finished != 0u) break;
  }

  for (uint w = t; w < words; w += stride) {
    const uint row = w / p.words_per_row;
    const uint base = row * p.cols + (w - row * p.words_per_row) * 32u;
    const uint pos = s_pos[w], neg = s_neg[w];
    [[unroll]] for (uint q = 0u; q < 8u; ++q) {
      ivec4 c;
      [[unroll]] for (uint e = 0u; e < 4u; ++e) {
        const uint b = 4u * q + e;
        c[e] = ((pos >> b) & 1u) != 0u ? 1 : (((neg >> b) & 1u) != 0u ? -1 : 0);
      }
      cells4[base / 4u + q] = c;
    }
  }
  if (t == 0u) {
    for (uint a = 0u; a < 3u; ++a) ctl.args[a].x = 0u;
  }
}
