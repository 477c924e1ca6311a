// Small-batch persistent rollout: K steps Y = Z·A for B trajectories (Z: B×D row-major) in ONE
// dispatch, every row bit for bit the contract of core_ref/rollout/vecmat.h ("THE CONTRACT";
// docs/MATH.md §9) — the B-row generalisation of shaders/rollout/rollout_persistent.comp. The host
// is accel_vulkan/batched/vulkan_batched_rollout.h (BatchedKernel::kSmallBatch).
//
// Work units. As in rollout_persistent: unit u = (chunk c, column tile t), c = u / tiles, rows
// i ∈ [64c, min(64c + 64, D)), outputs j = C·t + lc. The workgroup (W = C·R invocations, constant
// 0; R = row groups, constant 4) is R row groups of C invocations: invocation l is column
// lc = l mod C of row group rg = l / C. Workgroup g takes u = g, g + G, … When every workgroup has
// at most one unit (kResident = 1) each invocation loads its 64 entries of A's column j once, into
// registers, and keeps them for all K steps (the R row groups hold the same column); otherwise it
// reloads them per unit and step. Per step and unit, the B rows are walked in passes of P rows
// (constant 1, a multiple of 4):
//   1. part[r·64 + k] ← entry 64c + k of row p0 + r of the current state: at step 0 from the input
//      states, later rebuilt from the previous step's chunk partials by the contract's pairwise
//      tree, unrolled over registers (kChunks = m ≤ 32, constant 2; RebuildEntry below, the same
//      code as rollout_persistent's register tree);
//   2. row group rg takes the groups of G consecutive rows rg, rg + R, … of the pass (G = constant
//      5: 1, 2 or 4); invocation l computes the chunk partial p_c[b][j] of its G rows as G
//      interleaved independent chains, each in the contract's order (acc = z[i0]·A[i0][j], then
//      acc = acc + z[i]·A[i][j] for i in order up to min(i0 + 64, D) − 1, every product rounded
//      before the add: `precise` = NoContraction), and stores it in partials[s mod 2][b][c][j].
// Then the device-wide barrier of rollout_persistent (arrival counter sync[1 + slot], zeroed by the
// host; bounded spin, sync[0] = 1 and an UNAVAILABLE error on the host instead of a hang). After
// the last step workgroup g rebuilds the chunks c ≡ g (mod G) of every row and writes them to the
// output states.
//
// Merged wait (kResident = 1 and B ≤ P, i.e. every row in one pass): as in rollout_persistent's
// register-resident path, part[] keeps the unit's chunk of all B rows across the steps and the
// device-wide barrier and the next state's rebuild are one: after the arrival, each of the first
// Q invocations (constant 6; 0 = all W) polls the counter itself with acquire loads and rebuilds
// its entries of part[] as soon as it sees the last arrival (no workgroup barrier between the
// wait and the loads), U entries at a time (constant 7, 1..4: their U·m loads issued before the
// U trees); the unit with t = 0 of each chunk writes Z_K from part[] at the end.
//
// Rebuild once (kRebuildOnce = 1, merged wait only): every step's new state is rebuilt ONCE,
// not by every column tile of a chunk: (1) every unit stores its chunk partials and arrives;
// (2) the invocations with an entry (and invocation 0 of every workgroup) wait for the last
// arrival (acquire polls; kRebuildOnce = 2: the plain device-wide barrier, one poller and
// workgroup barriers, at (2) and (4));
// (3) entry e = g·W + l, + G·W, … of the B·D state (row e / D, entry e mod D) is rebuilt from its
// m partials by the contract's tree (RebuildEntry) and stored in z_out (and the history ring);
// (4) a second arrival and wait; (5) each unit loads its chunk of all B rows from z_out into
// part[]. The counter then counts two arrivals per workgroup a step (one at the last step,
// which skips (4)–(5): z_out holds Z_K). Fewer L2 reads (B·D·m partials instead of tiles times
// that), one more device-wide barrier. Here Q (constant 6) ≠ 0 spreads the entries of (3) evenly
// over the workgroups (contiguous shares of whole warps) instead of e = g·W + l, …, and U
// (constant 7) ≥ 2 rebuilds two entries a round in (3) (both entries' loads first) and keeps U
// loads in flight per invocation in (5) (the loads of a round before its stores).
//
// Per-chunk counters (kRebuildOnce = 3; the code's `local` branch): rebuild once without
// device-wide waits — a unit arrives at the "partials ready" counter of each chunk its columns
// fall in, chunk c's units rebuild chunk c's entries of all rows once that counter has its
// m·(tiles over chunk c) arrivals, arrive at chunk c's "state ready" counter and load chunk c
// once it has `tiles` arrivals; the new state alternates between z_out and a plane after the
// partials (z_out at the dispatch's last step). Halves (kRebuildOnce = 4; the code's `halves`
// branches): rebuild once with the rows in two halves, each with its own counter (two arrivals
// a workgroup a step), so that one half's arrivals travel while the other half is worked on.
// Both: workgroups without a unit leave at once; the counters (sync[kLocalBase + …]) are zeroed
// by the host before every dispatch. TIMING PROBE (kProbe ≠ 0, kRebuildOnce = 1 only): phases
// of the rebuilt-once step skipped, wrong states, for the benchmark's phase costs only.
//
// History ring (push constant history_from ≠ 0): the state after each local step s =
// history_from..K of the dispatch is also written to history[slot][b][i], slot = (history_base +
// s − 1) mod history_slots, by the units with t = 0 (the state they rebuild anyway), so the host
// can copy observed states back without ending the dispatch at each of them.
//
// Rows b ≥ B of the last pass are staged as zeros, their products computed and never stored.
// Every barrier() is reached in uniform control flow (the loops depend only on push constants,
// specialization constants and the workgroup's unit).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(local_size_x_id = 0) in;  // W = C·R invocations
layout(constant_id = 1) const uint kPassRows = 4u;   // P: rows per pass, a multiple of kGroupRows
layout(constant_id = 2) const uint kChunks = 1u;     // m = ceil(D / 64), 1 ≤ m ≤ 32
layout(constant_id = 3) const uint kResident = 0u;   // 1: at most one unit per workgroup
layout(constant_id = 4) const uint kRowGroups = 1u;  // R: row groups; C = W / R columns per unit
layout(constant_id = 5) const uint kGroupRows = 4u;  // rows whose chains one invocation interleaves
// Merged wait only: Q, the invocations that poll and rebuild (l < Q; 0 = all W), and U, the
// entries each of them rebuilds at once (their U·m loads issued before the U trees). With
// kRebuildOnce ≠ 0 they mean something else ("Rebuild once" below): Q ≠ 0 spreads the rebuilt
// entries over the workgroups, U ≥ 2 keeps loads in flight.
layout(constant_id = 6) const uint kRebuilders = 0u;
layout(constant_id = 7) const uint kRebuildUnroll = 1u;
// Merged wait only: 1 = rebuild each state entry once per step (two device-wide barriers a step;
// see "Rebuild once" below), 2 = the same with the plain device-wide barrier, 0 = every column
// tile of a chunk rebuilds its chunk's entries.
// 3 = the same with per-chunk counters instead of device-wide barriers ("Per-chunk counters"),
// 4 = the same in two halves of the rows, each with its own counter, so that one half's waits
// overlap the other half's work ("Halves").
layout(constant_id = 8) const uint kRebuildOnce = 0u;
// Bit 0: the inner loop reads the staged state from shared memory as dvec2 pairs (entries k,
// k + 1 of a row in one load; half the load instructions), else one double a load. Bit 1
// (kRebuildOnce only, D even, else ignored): the rebuild's loads of the partials in (3) and
// step (5)'s loads of the new state from z_out are dvec2 pairs too (entries 2p, 2p + 1 of the
// state rebuilt by one invocation, each by its own tree). The same products, adds and trees in
// the same order either way (only the loads differ).
layout(constant_id = 9) const uint kPairLoads = 0u;
// TIMING PROBE, WRONG STATES (the benchmark's phase costs only; never set by the table, rejected
// with any kernel option the table could select: VulkanBatchedRolloutOptions::
// small_batch_timing_probe): bits of kRebuildOnce = 1's step that are skipped. 1: the second
// arrival and wait (4); 2: the chunk partials' chains (each partial is one staged entry);
// 4: the loads of the new state (5); 8: the rebuild's loads, trees and stores (3).
// (Bit 2's partials are 0 · an entry: the state becomes 0 and stays finite.)
layout(constant_id = 10) const uint kProbe = 0u;
// Per-chunk counters (kRebuildOnce = 3): chunk c's "partials ready" counter at sync[kLocalBase +
// 32·c], its "state ready" counter at sync[kLocalBase + 32·(32 + c)] (128 bytes apart), zeroed by
// the host before every dispatch.
const uint kLocalBase = 1025u;
const uint kMaxChunks = 32u;
const uint kMaxGroupRows = 4u;

#include "rollout_contract.glsl"  // kChunk, the chunk partial and the pairwise tree

layout(std430, set = 0, binding = 0) readonly buffer MatrixA { double a[]; };        // D×D
layout(std430, set = 0, binding = 1) readonly buffer StatesIn { double z_in[]; };    // B×D
// coherent, not writeonly: with kRebuildOnce it holds the state every step, read by all units.
layout(std430, set = 0, binding = 2) coherent buffer StatesOut { double z_out[]; };  // B×D
layout(std430, set = 0, binding = 3) coherent buffer Partials { double partials[]; };  // 2·B·m·D
// volatile: the failure flag sync[0] is read with plain loads that always go to memory; the
// counters are polled with atomic loads (grid_barrier.glsl).
layout(std430, set = 0, binding = 4) coherent volatile buffer Sync { uint sync[]; };  // [0] error
layout(std430, set = 0, binding = 5) writeonly buffer History { double history[]; };  // H·B·D
// The same memory as z_out and partials, seen as dvec2 pairs (kPairLoads bit 1; D even, so that
// every pair of a row starts at an even index).
layout(std430, set = 0, binding = 2) coherent buffer StatesOutPairs { dvec2 z_out2[]; };
layout(std430, set = 0, binding = 3) coherent buffer PartialsPairs { dvec2 partials2[]; };

#include "batched_persistent_params.glsl"  // BatchedPersistentPushConstants

// The staged state, P rows of 64 entries, as dvec2 pairs (entry q is part2[q / 2][q mod 2]), so
// that kPairLoads can load two entries at once; PART(q) is entry q.
shared dvec2 part2[kPassRows * kChunk / 2u];
#define PART(q) part2[(q) >> 1u][(q) & 1u]
#include "grid_barrier.glsl"  // GridBarrier, AwaitCounter / AwaitArrivals and the flag grid_failed

// Entry i of a state row from its m chunk partials at `base` (+ c·D + i): the contract's tree,
// level s adding position c + s into c (c ≡ 0 mod 2s, c + s < m), unrolled over registers.
double RebuildEntry(uint base, uint i) {
  const uint dim = params.dim;
  double v[kMaxChunks];
  [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
    if (cc < kChunks) v[cc] = partials[base + cc * dim + i];
  }
  [[unroll]] for (uint s = 1u; s < kMaxChunks; s <<= 1u) {
    [[unroll]] for (uint cc = 0u; cc + s < kMaxChunks; cc += 2u * s) {
      if (cc + s < kChunks) {
        CONTRACT_MERGE(v[cc], v[cc], v[cc + s]);
      }
    }
  }
  return v[0];
}

#include "history_ring.glsl"  // HistorySlot

// The merged rebuild's U-entry rounds (entry e of the round at q0; inside main's merged branch):
// REBUILD_LOAD loads the m partials of entry q0 + e·Q + l (clamped to a valid entry) into v;
// REBUILD_STORE folds them by the contract's tree (as RebuildEntry) and stores the entry.
#define REBUILD_LOAD(v, e) \
  if ((e) < kRebuildUnroll) { \
    const uint q = min(q0 + (e) * rebuilders + l, entries - 1u); \
    const uint b = q / kChunk; \
    const uint k = min(q - b * kChunk, n - 1u); \
    const uint from = out_base + b * row_stride + i0 + k; \
    [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) { \
      if (cc < kChunks) v[cc] = partials[from + cc * dim]; \
    } \
  }
#define REBUILD_STORE(v, e) \
  if ((e) < kRebuildUnroll) { \
    [[unroll]] for (uint s = 1u; s < kMaxChunks; s <<= 1u) { \
      [[unroll]] for (uint cc = 0u; cc + s < kMaxChunks; cc += 2u * s) { \
        if (cc + s < kChunks) { \
          CONTRACT_MERGE(v[cc], v[cc], v[cc + s]); \
        } \
      } \
    } \
    const uint q = q0 + (e) * rebuilders + l; \
    const uint b = q / kChunk; \
    const uint k = q - b * kChunk; \
    if (q < entries && k < n) { \
      PART(q) = v[0]; \
      if (history_now && t == 0u) { \
        history[HistorySlot(step + 1u) * state_size + b * dim + i0 + k] = v[0]; \
      } \
    } \
  }

void main() {
  const uint dim = params.dim;
  const uint chunks = params.chunks;
  const uint rows = params.rows;
  const uint tiles = params.tiles;
  const uint units = chunks * tiles;
  const uint groups = gl_NumWorkGroups.x;
  const uint g = gl_WorkGroupID.x;
  const uint l = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;
  const uint cols = wg / kRowGroups;  // C: columns per unit (the host makes W a multiple of R)
  const uint rg = l / cols;           // this invocation's row group
  const uint lc = l - rg * cols;      // ... and column in the unit
  const uint row_stride = chunks * dim;  // partials of one row (one parity)
  const uint plane = rows * row_stride;  // partials of one parity
  const uint state_size = rows * dim;
  // Merged wait (kResident and every row in one pass, uniform): part[] keeps the unit's chunk of
  // all B rows from one step to the next, rebuilt right after the arrival wait by the invocations
  // that poll (no workgroup barrier between the wait and the loads; rollout_persistent.comp).
  const bool merged = kResident != 0u && rows <= kPassRows;
  const bool once = merged && kRebuildOnce != 0u;  // uniform
  const bool local = once && kRebuildOnce == 3u;   // per-chunk counters (uniform)
  const bool halves = once && kRebuildOnce == 4u;  // two halves of the rows (uniform)
  // Per-chunk counters and halves: a workgroup without a unit takes no part (no counter counts
  // it).
  if ((local || halves) && g >= units) return;
  // Halves: rows [0, half) and [half, B), half = ceil(B / 2) rounded up to whole groups of
  // kGroupRows (the second half may be empty).
  const uint half_rows = ((rows + 1u) / 2u + kGroupRows - 1u) / kGroupRows * kGroupRows;
  const uint nh = halves ? 2u : 1u;
  // Device-wide arrivals per workgroup a step with rebuild once (1 with the probe's bit 1).
  const uint per_step = (kProbe & 1u) != 0u ? 1u : 2u;

  // kResident: this invocation's column of its unit's A block, loaded once. Otherwise A is read
  // from memory at each use: an array of 64 doubles live across the barriers of a workgroup that
  // walks several units gave wrong states on lavapipe (Mesa 22.3.6; the single-trajectory
  // persistent kernel likewise reads A from memory on that path).
  double ar[kChunk];
#define A_ENTRY(k) (kResident != 0u ? ar[k] : a[(i0 + (k)) * dim + jl])
  if (kResident != 0u && g < units) {
    const uint c = g / tiles;
    const uint i0 = c * kChunk;
    const uint jl = min((g - c * tiles) * cols + lc, dim - 1u);  // clamped loads; stores guarded
    const uint n = min(kChunk, dim - i0);
    [[unroll]] for (uint k = 0u; k < kChunk; ++k) ar[k] = (k < n) ? a[(i0 + k) * dim + jl] : 0.0LF;
  }
  if (l == 0u) grid_failed = 0u;

  for (uint step = 0u; step < params.steps; ++step) {
    const uint in_base = ((step - 1u) & 1u) * plane;  // step ≥ 1 only
    const uint out_base = (step & 1u) * plane;
    const bool write_history = params.history_from != 0u && step >= params.history_from;
    for (uint h = 0u; h < nh; ++h) {
    // Halves ("Halves" below): half h's counter at sync[kLocalBase + 32·h], two arrivals per
    // workgroup a step (after its partials, after its rebuild), so the wait for the second
    // arrivals of step − 1 comes before this half's new rows are loaded.
    const uint h_lo = halves ? min(rows, h * half_rows) : 0u;
    const uint h_hi = halves ? min(rows, h * half_rows + half_rows) : rows;
    if (halves && step > 0u) {
      if (AwaitCounter(kLocalBase + 32u * h, 2u * step * units) != 0u) {
        atomicOr(grid_failed, 1u);
      } else {
        // Chunk c of rows [h_lo, h_hi) into part[] (entry q = b·64 + k), U loads of a round
        // first (from a valid index), then their stores; pairs where kPairLoads bit 1 (D even).
        const uint i0 = (g / tiles) * kChunk;
        const uint n = min(kChunk, dim - i0);
        const bool pairs = (kPairLoads & 2u) != 0u && (dim & 1u) == 0u;
        const uint per = pairs ? 2u : 1u;
        const uint q_lo = h_lo * kChunk / per;
        const uint q_hi = h_hi * kChunk / per;
        for (uint q0 = q_lo + l; q0 < q_hi; q0 += kRebuildUnroll * wg) {
          dvec2 w[4];
          [[unroll]] for (uint e = 0u; e < 4u; ++e) {
            if (e < kRebuildUnroll) {
              const uint q = per * (q0 + e * wg);
              const uint b = q / kChunk;
              const uint k = q - b * kChunk;
              const uint at = q < per * q_hi && k < n ? b * dim + i0 + k : 0u;
              if (pairs) {
                w[e] = z_out2[at >> 1u];
              } else {
                w[e].x = z_out[at];
              }
            }
          }
          [[unroll]] for (uint e = 0u; e < 4u; ++e) {
            if (e < kRebuildUnroll) {
              const uint qp = q0 + e * wg;
              const uint q = per * qp;
              const uint k = q - (q / kChunk) * kChunk;
              if (qp < q_hi && k < n) {
                if (pairs) {
                  part2[qp] = w[e];
                } else {
                  PART(q) = w[e].x;
                }
              }
            }
          }
        }
      }
      memoryBarrierShared();
      barrier();
      if (grid_failed != 0u) return;  // uniform: read after the barrier
    }
    for (uint u = g; u < units; u += groups) {
      const uint c = u / tiles;
      const uint t = u - c * tiles;
      const uint i0 = c * kChunk;
      const uint n = min(kChunk, dim - i0);  // rows of A in this chunk
      const uint j = t * cols + lc;
      const uint jl = min(j, dim - 1u);  // clamped loads; the stores are guarded
      for (uint p0 = 0u; p0 < rows; p0 += kPassRows) {
        // Rows staged in this pass: up to P, rounded up to whole groups of kGroupRows.
        const uint staged = min(kPassRows, (rows - p0 + kGroupRows - 1u) / kGroupRows * kGroupRows);
        if (!merged || (step == 0u && h == 0u)) {
          barrier();  // every invocation is done reading part[] (uniform)
          for (uint q0 = 0u; q0 < staged * kChunk; q0 += wg) {
            const uint q = q0 + l;
            if (q < staged * kChunk) {
              const uint r = q / kChunk;
              const uint k = q - r * kChunk;
              const uint b = p0 + r;
              double v = 0.0LF;
              if (b < rows && k < n) {
                if (step == 0u) {
                  v = z_in[b * dim + i0 + k];
                } else {
                  v = RebuildEntry(in_base + b * row_stride, i0 + k);
                  if (write_history && t == 0u) {
                    history[HistorySlot(step) * state_size + b * dim + i0 + k] = v;
                  }
                }
              }
              PART(q) = v;
            }
          }
          memoryBarrierShared();
          barrier();
        }
        // Row group rg takes the groups of kGroupRows rows rg, rg + R, … of the pass.
        // (Halves: the groups of this half's rows only; h_lo is a multiple of kGroupRows.)
        const uint r_end = halves ? h_hi : staged;
        for (uint r0 = h_lo + rg * kGroupRows; r0 < r_end; r0 += kRowGroups * kGroupRows) {
          double acc[kMaxGroupRows];
          // Row r0 + e's pair h (entries 2h, 2h + 1) is part2[(r0 + e)·32 + h].
          const uint pair0 = r0 * (kChunk / 2u);
          if ((kProbe & 2u) != 0u) {
            // TIMING PROBE (wrong states): no chains; each partial is 0 · the row's staged
            // entry 0 (so that the state stays finite).
            [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
              if (e < kGroupRows) acc[e] = 0.0LF * part2[pair0 + e * (kChunk / 2u)].x;
            }
          } else if ((kPairLoads & 1u) != 0u) {
            // Pairs: entries k, k + 1 of each row in one load, then term k of every row, then
            // term k + 1 (each row's chain in the contract's order, as below).
            [[unroll]] for (uint k = 0u; k < kChunk; k += 2u) {
              if (k < n) {
                const double ak = A_ENTRY(k);
                const double ak1 = k + 1u < n ? A_ENTRY(k + 1u) : 0.0LF;
                dvec2 zp[kMaxGroupRows];
                [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
                  if (e < kGroupRows) zp[e] = part2[pair0 + e * (kChunk / 2u) + (k >> 1u)];
                }
                [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
                  if (e < kGroupRows) {
                    if (k == 0u) {
                      CONTRACT_PRODUCT(product, zp[e].x, ak);
                      acc[e] = product;
                    } else {
                      CONTRACT_TERM(acc[e], zp[e].x, ak);
                    }
                  }
                }
                if (k + 1u < n) {
                  [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
                    if (e < kGroupRows) {
                      CONTRACT_TERM(acc[e], zp[e].y, ak1);
                    }
                  }
                }
              }
            }
          } else {
            const double a0 = A_ENTRY(0u);
            [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
              if (e < kGroupRows) {
                CONTRACT_PRODUCT(product, part2[pair0 + e * (kChunk / 2u)].x, a0);
                acc[e] = product;
              }
            }
            [[unroll]] for (uint k = 1u; k < kChunk; ++k) {
              if (k < n) {  // the contract's loop stops at the end of the chunk
                const double ak = A_ENTRY(k);
                [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
                  if (e < kGroupRows) {
                    CONTRACT_TERM(acc[e], part2[pair0 + e * (kChunk / 2u) + (k >> 1u)][k & 1u], ak);
                  }
                }
              }
            }
          }
          [[unroll]] for (uint e = 0u; e < kMaxGroupRows; ++e) {
            const uint b = p0 + r0 + e;
            if (e < kGroupRows && b < rows && j < dim) {
              partials[out_base + b * row_stride + c * dim + j] = acc[e];
            }
          }
        }
      }
    }
    if (halves) {
      memoryBarrierBuffer();  // the partials are visible device-wide before the arrival
      barrier();              // ... and every invocation is done reading part[]
      if (l == 0u) atomicAdd(sync[kLocalBase + 32u * h], 1u);
    }
    }  // h
    if (halves) {
      // Halves (kRebuildOnce = 4): per step and half h, (a) wait for the second arrivals of
      // step − 1 and load chunk c of the half's rows (above), (b) compute their partials and
      // arrive (first arrival), then for each half (c) wait for the first arrivals and rebuild
      // the half's entries once, spread over the units' invocations (entry h_lo·D + g·W + l,
      // + units·W, …), into z_out (and the history ring), (d) arrive (second arrival; not at
      // the last step). Half 1's partials are computed while half 0's arrivals travel, half 0
      // is rebuilt while half 1's do, and half 0's new rows are loaded and computed on while
      // half 1's rebuild is still arriving. Invocation 0 of every workgroup waits at (c), so a
      // second arrival never stands in for a late first one (as in rebuild once).
      const bool pairs = (kPairLoads & 2u) != 0u && (dim & 1u) == 0u;
      const bool history_now = params.history_from != 0u && step + 1u >= params.history_from;
      for (uint h = 0u; h < 2u; ++h) {
        const uint h_lo = min(rows, h * half_rows);
        const uint h_hi = min(rows, h * half_rows + half_rows);
        const uint per = pairs ? 2u : 1u;
        const uint v_first = (h_lo * dim) / per + g * wg + l;
        const uint v_end = (h_hi * dim) / per;
        if (v_first < v_end || l == 0u) {
          if (AwaitCounter(kLocalBase + 32u * h, (2u * step + 1u) * units) != 0u) {
            atomicOr(grid_failed, 1u);
          } else if ((kProbe & 8u) == 0u) {
            for (uint v = v_first; v < v_end; v += units * wg) {
              const uint e = per * v;
              const uint b = e / dim;
              const uint i = e - b * dim;
              if (pairs) {
                const uint from = (out_base + b * row_stride + i) >> 1u;
                dvec2 w[kMaxChunks];
                [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
                  if (cc < kChunks) w[cc] = partials2[from + cc * (dim >> 1u)];
                }
                double x[kMaxChunks], y[kMaxChunks];
                [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
                  if (cc < kChunks) {
                    x[cc] = w[cc].x;
                    y[cc] = w[cc].y;
                  }
                }
                [[unroll]] for (uint s = 1u; s < kMaxChunks; s <<= 1u) {
                  [[unroll]] for (uint cc = 0u; cc + s < kMaxChunks; cc += 2u * s) {
                    if (cc + s < kChunks) {
                      {
                        CONTRACT_MERGE(x[cc], x[cc], x[cc + s]);
                      }
                      {
                        CONTRACT_MERGE(y[cc], y[cc], y[cc + s]);
                      }
                    }
                  }
                }
                z_out[e] = x[0];
                z_out[e + 1u] = y[0];
                if (history_now) {
                  history[HistorySlot(step + 1u) * state_size + e] = x[0];
                  history[HistorySlot(step + 1u) * state_size + e + 1u] = y[0];
                }
              } else {
                const double x = RebuildEntry(out_base + b * row_stride, i);
                z_out[e] = x;
                if (history_now) history[HistorySlot(step + 1u) * state_size + e] = x;
              }
            }
          }
        }
        memoryBarrierBuffer();  // the new rows are visible device-wide before the arrival
        barrier();
        if (grid_failed != 0u) return;  // uniform: read after the barrier
        if (step + 1u < params.steps && l == 0u) atomicAdd(sync[kLocalBase + 32u * h], 1u);
      }
    } else if (local) {
      // Per-chunk counters (kRebuildOnce = 3): (1) every unit stores its chunk partials and
      // arrives at the "partials ready" counter of each chunk its columns fall in; (2)+(3) the
      // tiles·W invocations of chunk c's units rebuild chunk c's entries of all B rows (each
      // once) as soon as chunk c's counter has all m·(tiles over chunk c) arrivals of this step;
      // (4) each unit arrives at chunk c's "state ready" counter and waits for its `tiles`
      // arrivals; (5) it loads chunk c of every row. No device-wide wait: a unit waits only for
      // the units its chunk depends on. The new state alternates between z_out and a plane
      // after the partials (so that a slow unit still loading the previous state is never
      // overwritten: the writer of plane X at step s has waited, through two counters, for
      // every unit's loads of step s − 2); the local step K's goes to z_out.
      const uint c = g / tiles;  // g < units here
      const uint t = g - c * tiles;
      const uint i0 = c * kChunk;
      const uint n = min(kChunk, dim - i0);
      memoryBarrierBuffer();  // the partials are visible device-wide before the arrival
      barrier();              // ... and every invocation is done reading part[]
      if (l == 0u) {
        const uint j_last = min(t * cols + cols, dim) - 1u;
        for (uint co = (t * cols) / kChunk; co <= j_last / kChunk; ++co) {
          atomicAdd(sync[kLocalBase + 32u * co], 1u);
        }
      }
      // Arrivals at chunk c's counter per step: m units for each tile over chunk c's columns.
      const uint over = (i0 + n - 1u) / cols - i0 / cols + 1u;
      const bool pairs = (kPairLoads & 2u) != 0u && (dim & 1u) == 0u;  // n even then
      const uint count = pairs ? rows * n / 2u : rows * n;  // entries (pairs) of chunk c
      const uint v_first = t * wg + l;
      const uint v_step = tiles * wg;
      // Where S_{step+1} goes: z_out when K − (step + 1) is even, else the plane after the
      // partials (2·B·m·D doubles in).
      const bool to_out = ((params.steps - step - 1u) & 1u) == 0u;
      const uint plane2 = 2u * plane;
      if (v_first < count || l == 0u) {
        if (AwaitCounter(kLocalBase + 32u * c, (step + 1u) * chunks * over) != 0u) {
          atomicOr(grid_failed, 1u);
        } else {
          const bool history_now = params.history_from != 0u && step + 1u >= params.history_from;
          for (uint v = v_first; v < count; v += v_step) {
            const uint q = pairs ? 2u * v : v;
            const uint b = q / n;
            const uint e = b * dim + i0 + (q - b * n);  // the entry's index in the state
            const uint from = out_base + b * row_stride + i0 + (q - b * n);
            if (pairs) {
              dvec2 w[kMaxChunks];
              [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
                if (cc < kChunks) w[cc] = partials2[(from >> 1u) + cc * (dim >> 1u)];
              }
              double x[kMaxChunks], y[kMaxChunks];
              [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
                if (cc < kChunks) {
                  x[cc] = w[cc].x;
                  y[cc] = w[cc].y;
                }
              }
              [[unroll]] for (uint s = 1u; s < kMaxChunks; s <<= 1u) {
                [[unroll]] for (uint cc = 0u; cc + s < kMaxChunks; cc += 2u * s) {
                  if (cc + s < kChunks) {
                    {
                      CONTRACT_MERGE(x[cc], x[cc], x[cc + s]);
                    }
                    {
                      CONTRACT_MERGE(y[cc], y[cc], y[cc + s]);
                    }
                  }
                }
              }
              if (to_out) {
                z_out[e] = x[0];
                z_out[e + 1u] = y[0];
              } else {
                partials[plane2 + e] = x[0];
                partials[plane2 + e + 1u] = y[0];
              }
              if (history_now) {
                history[HistorySlot(step + 1u) * state_size + e] = x[0];
                history[HistorySlot(step + 1u) * state_size + e + 1u] = y[0];
              }
            } else {
              const double x = RebuildEntry(out_base + b * row_stride, i0 + (q - b * n));
              if (to_out) {
                z_out[e] = x;
              } else {
                partials[plane2 + e] = x;
              }
              if (history_now) history[HistorySlot(step + 1u) * state_size + e] = x;
            }
          }
        }
      }
      memoryBarrierBuffer();  // the new state is visible device-wide before the arrival
      barrier();
      if (grid_failed != 0u) return;  // uniform: read after the barrier
      if (step + 1u < params.steps) {
        const uint ready = kLocalBase + 32u * (32u + c);
        if (l == 0u) atomicAdd(sync[ready], 1u);
        if (AwaitCounter(ready, (step + 1u) * tiles) != 0u) {
          atomicOr(grid_failed, 1u);
        } else {
          // Chunk c of every row into part[] (entry q = b·64 + k), U loads of a round first
          // (from a valid index), then their stores; pairs of entries where `pairs`.
          const uint per = pairs ? 2u : 1u;
          const uint staged = rows * kChunk / per;
          for (uint q0 = l; q0 < staged; q0 += kRebuildUnroll * wg) {
            dvec2 w[4];
            [[unroll]] for (uint e = 0u; e < 4u; ++e) {
              if (e < kRebuildUnroll) {
                const uint q = per * (q0 + e * wg);
                const uint b = q / kChunk;
                const uint k = q - b * kChunk;
                const uint at = q < per * staged && k < n ? b * dim + i0 + k : 0u;
                if (pairs) {
                  w[e] = to_out ? z_out2[at >> 1u] : partials2[(plane2 + at) >> 1u];
                } else {
                  w[e].x = to_out ? z_out[at] : partials[plane2 + at];
                }
              }
            }
            [[unroll]] for (uint e = 0u; e < 4u; ++e) {
              if (e < kRebuildUnroll) {
                const uint qp = q0 + e * wg;
                const uint q = per * qp;
                const uint k = q - (q / kChunk) * kChunk;
                if (qp < staged && k < n) {
                  if (pairs) {
                    part2[qp] = w[e];
                  } else {
                    PART(q) = w[e].x;
                  }
                }
              }
            }
          }
        }
        memoryBarrierShared();
        barrier();
        if (grid_failed != 0u) return;  // uniform: read after the barrier
      }
    } else if (once) {
      // Rebuild once: (1) arrival, (2) wait, (3) each entry of the new state rebuilt once into
      // z_out, (4) second arrival and wait, (5) this unit's chunk of every row into part[].
      // kRebuildOnce = 2: the plain device-wide barrier (one poller, workgroup barriers) at (2)
      // and (4) instead of every invocation polling with acquire loads.
      const bool plain = kRebuildOnce == 2u;
      if (plain && !GridBarrier((per_step * step + 1u) * groups)) return;
      if (!plain) {
        memoryBarrierBuffer();  // the partials are visible device-wide before the arrival
        barrier();              // ... and every invocation is done reading part[]
        if (l == 0u) atomicAdd(sync[1u + params.sync_slot], 1u);
      }
      const uint total = rows * dim;
      // The entries of this invocation: e_first, + e_step, … < e_end. kRebuilders = 0: entry
      // e = g·W + l, + G·W, … (the first workgroups take them all when B·D < G·W); kRebuilders
      // ≠ 0 ("spread"): workgroup g takes the contiguous share [g·span, (g + 1)·span) of
      // span = ceil(B·D / (32·G))·32 entries, so every workgroup rebuilds about as many.
      const bool spread = kRebuilders != 0u;
      // Pairs (kPairLoads bit 1, D even; uniform): the same walk over pairs p of entries 2p,
      // 2p + 1 (span / 2 pairs a share; B·D / 2 pairs).
      const bool pairs = (kPairLoads & 2u) != 0u && (dim & 1u) == 0u;
      const uint units_total = pairs ? total / 2u : total;
      const uint span = spread ? (total + 32u * groups - 1u) / (32u * groups) * (pairs ? 16u : 32u)
                               : wg;
      const uint e_first = g * span + l;
      const uint e_end = spread ? min(g * span + span, units_total) : units_total;
      const uint e_step = spread ? wg : groups * wg;
      // Invocation 0 waits even where its workgroup has no entry to rebuild: its second arrival
      // below must not come before every workgroup's first (the counter is cumulative: an early
      // second arrival would stand in for a late first one, and the rebuild would read partials
      // not yet written — wrong states at B = 3, 4 on an H200 before this was added).
      if (e_first < e_end || l == 0u) {
        if (!plain && AwaitArrivals((per_step * step + 1u) * groups) != 0u) {
          atomicOr(grid_failed, 1u);
        } else {
          const bool history_now = params.history_from != 0u && step + 1u >= params.history_from;
          if ((kProbe & 8u) != 0u) {
            // TIMING PROBE (wrong states): no rebuild.
          } else if (pairs) {
            // Pair p: entries e = 2p, 2p + 1 of row b (D even: both in the row), their m
            // partials loaded as m pairs, then each entry's tree (RebuildEntry's order).
            for (uint p = e_first; p < e_end; p += e_step) {
              const uint e = 2u * p;
              const uint b = e / dim;
              const uint from = (out_base + b * row_stride + (e - b * dim)) >> 1u;
              dvec2 v[kMaxChunks];
              [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
                if (cc < kChunks) v[cc] = partials2[from + cc * (dim >> 1u)];
              }
              double x[kMaxChunks], y[kMaxChunks];
              [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
                if (cc < kChunks) {
                  x[cc] = v[cc].x;
                  y[cc] = v[cc].y;
                }
              }
              [[unroll]] for (uint s = 1u; s < kMaxChunks; s <<= 1u) {
                [[unroll]] for (uint cc = 0u; cc + s < kMaxChunks; cc += 2u * s) {
                  if (cc + s < kChunks) {
                    {
                      CONTRACT_MERGE(x[cc], x[cc], x[cc + s]);
                    }
                    {
                      CONTRACT_MERGE(y[cc], y[cc], y[cc + s]);
                    }
                  }
                }
              }
              z_out[e] = x[0];
              z_out[e + 1u] = y[0];
              if (history_now) {
                history[HistorySlot(step + 1u) * state_size + e] = x[0];
                history[HistorySlot(step + 1u) * state_size + e + 1u] = y[0];
              }
            }
          } else if (kRebuildUnroll <= 1u) {
            for (uint e = e_first; e < e_end; e += e_step) {
              const uint b = e / dim;
              const uint i = e - b * dim;
              const double v = RebuildEntry(out_base + b * row_stride, i);
              z_out[e] = v;
              if (history_now) history[HistorySlot(step + 1u) * state_size + e] = v;
            }
          } else {
            // Two entries a round: both entries' m loads issued before the two trees (the
            // second clamped to the first where it lies past the end; stored only if inside).
            for (uint e = e_first; e < e_end; e += 2u * e_step) {
              const uint e2 = e + e_step < e_end ? e + e_step : e;
              const uint b0 = e / dim;
              const uint b1 = e2 / dim;
              const uint from0 = out_base + b0 * row_stride + (e - b0 * dim);
              const uint from1 = out_base + b1 * row_stride + (e2 - b1 * dim);
              double v0[kMaxChunks], v1[kMaxChunks];
              [[unroll]] for (uint cc = 0u; cc < kMaxChunks; ++cc) {
                if (cc < kChunks) {
                  v0[cc] = partials[from0 + cc * dim];
                  v1[cc] = partials[from1 + cc * dim];
                }
              }
              [[unroll]] for (uint s = 1u; s < kMaxChunks; s <<= 1u) {
                [[unroll]] for (uint cc = 0u; cc + s < kMaxChunks; cc += 2u * s) {
                  if (cc + s < kChunks) {
                    {
                      CONTRACT_MERGE(v0[cc], v0[cc], v0[cc + s]);
                    }
                    {
                      CONTRACT_MERGE(v1[cc], v1[cc], v1[cc + s]);
                    }
                  }
                }
              }
              z_out[e] = v0[0];
              if (history_now) history[HistorySlot(step + 1u) * state_size + e] = v0[0];
              if (e + e_step < e_end) {
                z_out[e2] = v1[0];
                if (history_now) history[HistorySlot(step + 1u) * state_size + e2] = v1[0];
              }
            }
          }
        }
      }
      memoryBarrierBuffer();  // the new state is visible device-wide before the second arrival
      barrier();
      if (grid_failed != 0u) return;  // uniform: read after the barrier
      if (step + 1u < params.steps) {
        const bool wait2 = (kProbe & 1u) == 0u;  // TIMING PROBE bit 1: no second wait
        if (plain && !GridBarrier((2u * step + 2u) * groups)) return;
        if (!plain && wait2 && l == 0u) atomicAdd(sync[1u + params.sync_slot], 1u);
        if (!plain && wait2 && AwaitArrivals((2u * step + 2u) * groups) != 0u) {
          atomicOr(grid_failed, 1u);
        } else if (g < units && (kProbe & 4u) == 0u) {
          const uint i0 = (g / tiles) * kChunk;
          const uint n = min(kChunk, dim - i0);
          if (pairs) {
            // Pairs qp (entries q = 2qp, 2qp + 1 of part[]; D even, so n is even and both lie
            // inside the chunk or neither does), U pair loads of a round first (from a valid
            // index), then their stores.
            const uint staged = rows * kChunk / 2u;
            for (uint q0 = l; q0 < staged; q0 += kRebuildUnroll * wg) {
              dvec2 v[4];
              [[unroll]] for (uint e = 0u; e < 4u; ++e) {
                if (e < kRebuildUnroll) {
                  const uint q = 2u * (q0 + e * wg);
                  const uint b = q / kChunk;
                  const uint k = q - b * kChunk;
                  v[e] = z_out2[q < 2u * staged && k < n ? (b * dim + i0 + k) >> 1u : 0u];
                }
              }
              [[unroll]] for (uint e = 0u; e < 4u; ++e) {
                if (e < kRebuildUnroll) {
                  const uint qp = q0 + e * wg;
                  const uint k = 2u * qp - ((2u * qp) / kChunk) * kChunk;
                  if (qp < staged && k < n) part2[qp] = v[e];
                }
              }
            }
          } else if (kRebuildUnroll <= 1u) {
            for (uint q = l; q < rows * kChunk; q += wg) {
              const uint b = q / kChunk;
              const uint k = q - b * kChunk;
              if (k < n) PART(q) = z_out[b * dim + i0 + k];
            }
          } else {
            // U loads in flight per invocation: the U loads of a round first (unconditional,
            // from a valid index), then the U stores into part[] of those inside the chunk.
            const uint staged = rows * kChunk;
            for (uint q0 = l; q0 < staged; q0 += kRebuildUnroll * wg) {
              double v[4];
              [[unroll]] for (uint e = 0u; e < 4u; ++e) {
                if (e < kRebuildUnroll) {
                  const uint q = q0 + e * wg;
                  const uint b = q / kChunk;
                  const uint k = q - b * kChunk;
                  v[e] = z_out[q < staged && k < n ? b * dim + i0 + k : 0u];
                }
              }
              [[unroll]] for (uint e = 0u; e < 4u; ++e) {
                if (e < kRebuildUnroll) {
                  const uint q = q0 + e * wg;
                  const uint k = q - (q / kChunk) * kChunk;
                  if (q < staged && k < n) PART(q) = v[e];
                }
              }
            }
          }
        }
        memoryBarrierShared();
        barrier();
        if (grid_failed != 0u) return;  // uniform: read after the barrier
      }
    } else if (merged) {
      // The device-wide barrier and the next state's rebuild in one: after the arrival, each of
      // the first Q invocations polls the counter itself and, once all workgroups have arrived,
      // rebuilds entries q = q0 + e·Q + l (e < U, q0 = 0, U·Q, …) of part[] (row q / 64, entry
      // q mod 64) from this step's partials, the U·m loads first (clamped to a valid entry),
      // then the U trees; rows ≥ B and entries past D keep their zeros from step 0.
      memoryBarrierBuffer();  // the partials are visible device-wide before the arrival
      barrier();              // ... and every invocation is done reading part[]
      if (l == 0u) atomicAdd(sync[1u + params.sync_slot], 1u);
      const uint entries = g < units ? rows * kChunk : 0u;  // uniform
      const uint rebuilders = kRebuilders == 0u ? wg : min(kRebuilders, wg);
      if (l < min(entries, rebuilders)) {
        if (AwaitArrivals((step + 1u) * groups) != 0u) {
          atomicOr(grid_failed, 1u);
        } else {
          const uint c = g / tiles;
          const uint t = g - c * tiles;
          const uint i0 = c * kChunk;
          const uint n = min(kChunk, dim - i0);
          const bool history_now = params.history_from != 0u && step + 1u >= params.history_from;
          if (kRebuilders == 0u && kRebuildUnroll == 1u) {
            // Every invocation, one entry at a time.
            for (uint q = l; q < entries; q += wg) {
              const uint b = q / kChunk;
              const uint k = q - b * kChunk;
              if (k < n) {
                const double v = RebuildEntry(out_base + b * row_stride, i0 + k);
                PART(q) = v;
                if (history_now && t == 0u) {
                  history[HistorySlot(step + 1u) * state_size + b * dim + i0 + k] = v;
                }
              }
            }
          } else {
            for (uint q0 = 0u; q0 < entries; q0 += rebuilders * kRebuildUnroll) {
              // One register array per entry (constant indices only).
              double v0[kMaxChunks], v1[kMaxChunks], v2[kMaxChunks], v3[kMaxChunks];
              REBUILD_LOAD(v0, 0u);
              REBUILD_LOAD(v1, 1u);
              REBUILD_LOAD(v2, 2u);
              REBUILD_LOAD(v3, 3u);
              REBUILD_STORE(v0, 0u);
              REBUILD_STORE(v1, 1u);
              REBUILD_STORE(v2, 2u);
              REBUILD_STORE(v3, 3u);
            }
          }
        }
      }
      memoryBarrierShared();
      barrier();
      if (grid_failed != 0u) return;  // uniform: read after the barrier
    } else {
      if (!GridBarrier((step + 1u) * groups)) return;  // uniform: `grid_failed` read after a barrier
    }
  }

  if (once) return;  // z_out (and the history ring) hold Z_K from the last step's rebuild
  if (merged) {
    // part[] holds Z_K's chunk c of every row (its history slot is written); the unit with t = 0
    // of each chunk writes it.
    if (g < units) {
      const uint c = g / tiles;
      const uint i0 = c * kChunk;
      const uint n = min(kChunk, dim - i0);
      if (g - c * tiles == 0u) {
        for (uint q = l; q < rows * kChunk; q += wg) {
          const uint b = q / kChunk;
          const uint k = q - b * kChunk;
          if (k < n) z_out[b * dim + i0 + k] = PART(q);
        }
      }
    }
    return;
  }

  // Z_K: workgroup g writes the chunks c ≡ g (mod G) of every row.
  const uint last_base = ((params.steps - 1u) & 1u) * plane;
  for (uint c = g; c < chunks; c += groups) {
    const uint i0 = c * kChunk;
    const uint n = min(kChunk, dim - i0);
    for (uint q0 = 0u; q0 < rows * kChunk; q0 += wg) {
      const uint q = q0 + l;
      const uint b = q / kChunk;
      const uint k = q - b * kChunk;
      if (b < rows && k < n) {
        const double v = RebuildEntry(last_base + b * row_stride, i0 + k);
        z_out[b * dim + i0 + k] = v;
        if (params.history_from != 0u) {
          history[HistorySlot(params.steps) * state_size + b * dim + i0 + k] = v;
        }
      }
    }
  }
}
