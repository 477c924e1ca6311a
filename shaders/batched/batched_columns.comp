// Column-slice persistent rollout: K steps Y = Z·A for B trajectories (Z: B×D row-major) in ONE
// dispatch, every row bit for bit the contract of core_ref/rollout/vecmat.h ("THE CONTRACT";
// docs/MATH.md §9). The host is accel_vulkan/batched/vulkan_batched_rollout.h
// (BatchedKernel::kColumnSlice). Unlike batched_persistent.comp, K is never split across
// workgroups: no chunk partials leave a workgroup and nothing is rebuilt from them.
//
// Slices. Slice s owns the output columns j ∈ [Wc·s, Wc·s + Wc) (Wc = constant 6) over the full
// K: all m chunks. The workgroup (W = Wc·m·R invocations, or more: the host's minimum size, the
// extra ones only stage and fold) is R row groups (constant 4) of Wc·m invocations: invocation l holds column jj = l mod Wc, chunk c = (l / Wc) mod m of row group
// rg = l / (Wc·m). Workgroup g takes the slices s = g, g + G, … When every workgroup has at most
// one slice (kResident = 1) each invocation loads the 64 entries of A's column j in chunk c once,
// into registers, and keeps them for all K steps; otherwise it reads them from memory at each use.
// Per step and slice, the B rows are walked in passes of P rows (constant 1):
//   1. the P rows of the current state (step 0: the input states; later the previous step's
//      output, states[(step − 1) mod 2]) are staged whole in shared memory (zs, each chunk padded
//      to 65 doubles so the chunks a warp reads sit in different banks); the loads of the next
//      pass are issued into registers before this pass's products, so they overlap them;
//   2. row group rg takes the groups of G consecutive rows rg·G, rg·G + R·G, … of the pass
//      (G = constant 5: 1, 2 or 4); invocation l computes the chunk partial p_c[b][j] of its G
//      rows as G interleaved independent chains, each in the contract's order (acc =
//      z[i0]·A[i0][j], then acc = acc + z[i]·A[i][j] for i in order up to min(i0 + 64, D) − 1,
//      every product rounded before the add: `precise` = NoContraction), into shared memory (ps);
//   3. invocation q < (rows of the pass)·Wc folds the m partials of row q / Wc, column
//      Wc·s + q mod Wc by the contract's pairwise tree, level by level over registers (position
//      c + s added into c for c ≡ 0 mod 2s, c + s < m, the lower index on the left), and stores
//      y[b][j] in states[step mod 2] (and, at the dispatch's last step, in the output states).
// Then, except after the last step, the device-wide barrier of rollout_persistent (arrival counter
// sync[1 + slot], zeroed by the host; bounded spin, sync[0] = 1 and an UNAVAILABLE error on the
// host instead of a hang): every workgroup then reads the whole new state (B·D doubles, from L2).
//
// History ring (push constant history_from ≠ 0): the state after each local step s =
// history_from..K of the dispatch is also written to history[slot][b][j], slot = (history_base +
// s − 1) mod history_slots, by the invocation that folds y[b][j].
//
// Rows past B in the last pass and columns past D in the last slice are computed from stale or
// clamped operands and never stored. Every barrier() is reached in uniform control flow (the
// loops depend only on push constants, specialization constants and the workgroup's slice).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(local_size_x_id = 0) in;  // W = Wc·m·R invocations
layout(constant_id = 1) const uint kPassRows = 4u;   // P: rows staged per pass
layout(constant_id = 2) const uint kChunks = 1u;     // m = ceil(D / 64), 1 ≤ m ≤ 32
layout(constant_id = 3) const uint kResident = 0u;   // 1: at most one slice per workgroup
layout(constant_id = 4) const uint kRowGroups = 1u;  // R
layout(constant_id = 5) const uint kGroupRows = 1u;  // G: rows whose chains one invocation interleaves
layout(constant_id = 6) const uint kCols = 4u;       // Wc: columns per slice
// Loads of one staged row per invocation: ceil(64·m / W); P·kRowLoads ≤ kMaxLoads (the host).
layout(constant_id = 7) const uint kRowLoads = 1u;
// Experiments (docs/PERF.md): kAShared = 1 keeps the slice's A in shared memory (staged once;
// needs kResident) instead of registers; kPrefetch = 0 stages each pass's rows straight from
// memory instead of through registers loaded during the previous pass's products;
// kASharedDoubles: the size of that array (Wc·m·65, or 1 when unused).
layout(constant_id = 8) const uint kAShared = 0u;
layout(constant_id = 9) const uint kPrefetch = 1u;
layout(constant_id = 10) const uint kASharedDoubles = 1u;
const uint kMaxChunks = 32u;
const uint kMaxGroupRows = 4u;
const uint kMaxLoads = 32u;
const uint kPad = 65u;  // doubles per staged chunk (64 + 1: chunk c starts 2c banks further)

#include "rollout_contract.glsl"  // kChunk, the chunk partial and the pairwise tree

layout(std430, set = 0, binding = 0) readonly buffer MatrixA { double a[]; };        // D×D
layout(std430, set = 0, binding = 1) readonly buffer StatesIn { double z_in[]; };    // B×D
layout(std430, set = 0, binding = 2) writeonly buffer StatesOut { double z_out[]; }; // B×D
layout(std430, set = 0, binding = 3) coherent buffer States { double states[]; };    // 2·B·D (+)
// volatile: the failure flag sync[0] is read with plain loads that always go to memory; the
// arrival counter is polled with atomic loads (grid_barrier.glsl).
layout(std430, set = 0, binding = 4) coherent volatile buffer Sync { uint sync[]; };  // [0] error
layout(std430, set = 0, binding = 5) writeonly buffer History { double history[]; };  // H·B·D

#include "batched_persistent_params.glsl"  // BatchedPersistentPushConstants (tiles = slices)

shared double zs[kPassRows * kChunks * kPad];      // the pass's rows, chunks padded
shared double ps[kPassRows * kChunks * kCols];     // chunk partials [row][chunk][column]
shared double as_[kASharedDoubles];            // kAShared: A[64c + k][Wc·s + jj] at (65c + k)·Wc + jj

#include "history_ring.glsl"  // HistorySlot
#include "grid_barrier.glsl"  // GridBarrier: the device-wide barrier between steps

void main() {
  const uint dim = params.dim;
  const uint rows = params.rows;
  const uint slices = params.tiles;
  const uint groups = gl_NumWorkGroups.x;
  const uint g = gl_WorkGroupID.x;
  const uint l = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;
  const uint pairs = kCols * kChunks;  // invocations per row group
  const uint rg = l / pairs;           // this invocation's row group
  const uint pair = l - rg * pairs;
  const uint c = pair / kCols;         // ... its chunk
  const uint jj = pair - c * kCols;    // ... and column in the slice
  const uint i0 = c * kChunk;
  const uint n = i0 < dim ? min(kChunk, dim - i0) : 0u;  // rows of A in this chunk
  const uint state_size = rows * dim;

  // kResident: this invocation's 64 entries of A (column j, chunk c), loaded once.
  double ar[kChunk];
  if (kAShared != 0u && g < slices) {
    for (uint q = l; q < kCols * kChunks * kChunk; q += wg) {
      const uint ck = q / kCols;
      const uint jq = q - ck * kCols;
      const uint i = ck;  // 64c + k
      const uint jo = g * kCols + jq;
      as_[((ck >> 6u) * kPad + (ck & 63u)) * kCols + jq] =
          (i < dim && jo < dim) ? a[i * dim + jo] : 0.0LF;
    }
  } else if (kResident != 0u && g < slices) {
    const uint jl = min(g * kCols + jj, dim - 1u);  // clamped loads; stores guarded
    [[unroll]] for (uint k = 0u; k < kChunk; ++k) {
      ar[k] = (k < n) ? a[(i0 + k) * dim + jl] : 0.0LF;
    }
  }
#define A_ENTRY(k)                                              \
  (kAShared != 0u    ? as_[(c * kPad + (k)) * kCols + jj]       \
   : kResident != 0u ? ar[k]                                    \
                     : a[(i0 + (k)) * dim + jl])
  if (l == 0u) grid_failed = 0u;

  for (uint step = 0u; step < params.steps; ++step) {
    const uint in_base = ((step - 1u) & 1u) * state_size;  // step ≥ 1 only
    const uint out_base = (step & 1u) * state_size;
    const bool last = step + 1u == params.steps;
    const bool history_now = params.history_from != 0u && step + 1u >= params.history_from;
    for (uint s = g; s < slices; s += groups) {
      const uint j = s * kCols + jj;
      const uint jl = min(j, dim - 1u);
      // The first pass's rows into registers: entry i = l + e·W of staged row r, for
      // r·kRowLoads + e < kMaxLoads.
      double pre[kMaxLoads];
      [[unroll]] for (uint q = 0u; q < kMaxLoads; ++q) {
        const uint r = q / kRowLoads;
        const uint e = q - r * kRowLoads;
        if (kPrefetch != 0u && r < kPassRows) {
          const uint i = l + e * wg;
          double v = 0.0LF;
          if (r < rows && i < dim) v = step == 0u ? z_in[r * dim + i] : states[in_base + r * dim + i];
          pre[q] = v;
        }
      }
      for (uint p0 = 0u; p0 < rows; p0 += kPassRows) {
        const uint staged = min(kPassRows, rows - p0);
        barrier();  // every invocation is done with zs and ps of the previous pass
        if (kPrefetch != 0u) {
          [[unroll]] for (uint q = 0u; q < kMaxLoads; ++q) {
            const uint r = q / kRowLoads;
            const uint e = q - r * kRowLoads;
            const uint i = l + e * wg;
            if (r < kPassRows && i < kChunks * kChunk) {
              zs[r * kChunks * kPad + (i >> 6u) * kPad + (i & 63u)] = pre[q];
            }
          }
        } else {
          for (uint q = l; q < kPassRows * kChunks * kChunk; q += wg) {
            const uint r = q / (kChunks * kChunk);
            const uint i = q - r * (kChunks * kChunk);
            const uint b = p0 + r;
            double v = 0.0LF;
            if (b < rows && i < dim) {
              v = step == 0u ? z_in[b * dim + i] : states[in_base + b * dim + i];
            }
            zs[r * kChunks * kPad + (i >> 6u) * kPad + (i & 63u)] = v;
          }
        }
        memoryBarrierShared();
        barrier();
        // The next pass's rows into registers, in flight during the products below.
        const uint p1 = p0 + kPassRows;
        if (kPrefetch != 0u && p1 < rows) {
          [[unroll]] for (uint q = 0u; q < kMaxLoads; ++q) {
            const uint r = q / kRowLoads;
            const uint e = q - r * kRowLoads;
            if (r < kPassRows) {
              const uint i = l + e * wg;
              const uint b = p1 + r;
              double v = 0.0LF;
              if (b < rows && i < dim) {
                v = step == 0u ? z_in[b * dim + i] : states[in_base + b * dim + i];
              }
              pre[q] = v;
            }
          }
        }
        // Row group rg takes the groups of kGroupRows rows rg·G, rg·G + R·G, … of the pass.
        // (Invocations past the R row groups, in a workgroup rounded up to the host's minimum,
        // only stage and fold.)
        for (uint r0 = rg * kGroupRows; rg < kRowGroups && r0 < staged;
             r0 += kRowGroups * kGroupRows) {
          const uint zb = r0 * kChunks * kPad + c * kPad;
          double acc[kMaxGroupRows];
          const double a0 = A_ENTRY(0u);
          [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
            if (e < kGroupRows) {
              CONTRACT_PRODUCT(product, zs[zb + e * kChunks * kPad], a0);
              acc[e] = product;
            }
          }
          [[unroll]] for (uint k = 1u; k < kChunk; ++k) {
            if (k < n) {  // the contract's loop stops at the end of the chunk
              const double ak = A_ENTRY(k);
              [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
                if (e < kGroupRows) {
                  CONTRACT_TERM(acc[e], zs[zb + e * kChunks * kPad + k], ak);
                }
              }
            }
          }
          [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
            if (e < kGroupRows && r0 + e < staged) {
              ps[(r0 + e) * pairs + c * kCols + jj] = acc[e];
            }
          }
        }
        memoryBarrierShared();
        barrier();
        // The pairwise tree over the m partials of each (row, column) of the pass.
        for (uint q = l; q < staged * kCols; q += wg) {
          const uint r = q / kCols;
          const uint jq = q - r * kCols;
          const uint jo = s * kCols + jq;
          if (jo < dim) {
            double v[kMaxChunks];
            [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
              if (cc < kChunks) v[cc] = ps[r * pairs + cc * kCols + jq];
            }
            [[unroll]] for (uint t = 1u; t < kMaxChunks; t <<= 1u) {
              [[unroll]] for (uint cc = 0u; cc + t < kMaxChunks; cc += 2u * t) {
                if (cc + t < kChunks) {
                  CONTRACT_MERGE(v[cc], v[cc], v[cc + t]);
                }
              }
            }
            const uint at = (p0 + r) * dim + jo;
            states[out_base + at] = v[0];
            if (last) z_out[at] = v[0];
            if (history_now) history[HistorySlot(step + 1u) * state_size + at] = v[0];
          }
        }
      }
    }
    if (!last && !GridBarrier((step + 1u) * groups)) return;  // uniform
  }
}
