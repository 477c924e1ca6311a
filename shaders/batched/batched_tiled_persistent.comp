// Tiled persistent rollout: K steps Y = Z·A for B trajectories (Z: B×D row-major) in ONE dispatch,
// each step the tiled GEMM of batched_rollout.comp (batched_tile_core.glsl: the same tiles,
// stages, K groups and options, every output bit for bit the contract of core_ref/rollout/vecmat.h,
// "THE CONTRACT"; docs/MATH.md §9), the steps separated by a device-wide barrier instead of a
// dispatch boundary and a pipeline barrier. The host is accel_vulkan/batched/
// vulkan_batched_rollout.h (BatchedKernel::kTiledPersistent).
//
// Workgroup g of G (all resident at once: the host checks the SM count) takes the tiles
// t = g, g + G, … of the ceil(B / TM) × ceil(D / TN) output tiles (t = row tile · column tiles +
// column tile), one after the other, each over all m chunks (no K blocks; the tree slots in
// registers or local memory, never in the scratch buffer: the host rejects both). Per step:
//   - the products of each of its tiles (TileProducts) from the current state,
//     states[(step − 1) mod 2] (binding 3, coherent: written by other workgroups during this
//     dispatch); at step 0 that is plane 1, into which the host copies the dispatch's input states
//     (binding 1 is not read: reading either binding by a uniform choice per load made the step
//     0.4 µs (5 %) longer at D = 512 on an H200, docs/PERF.md "Large batches, part 12");
//   - copy 0 stores its outputs in states[step mod 2], at the dispatch's last step also in the
//     output states (binding 2), and, from local step history_from on, in the history ring
//     (history[slot][b][j], slot = (history_base + s − 1) mod history_slots for local step s);
//   - except after the last step, the device-wide barrier (grid_barrier.glsl).
// A workgroup barrier() separates two tiles of a step: defensive — every path through
// TileProducts already ends its reads of the stages before a barrier(), and the K-group fold's
// reads of `fold` before the next fold's first barrier() — and only where a workgroup walks
// several tiles. Every barrier() is
// reached in uniform control flow (the loops depend only on push constants, specialization
// constants and the workgroup's index).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(std430, set = 0, binding = 0) readonly buffer MatrixA { double a[]; };        // D×D
layout(std430, set = 0, binding = 1) readonly buffer StatesIn { double z_in[]; };    // B×D
layout(std430, set = 0, binding = 2) writeonly buffer StatesOut { double z_out[]; }; // B×D
layout(std430, set = 0, binding = 3) coherent buffer States { double states[]; };    // 2·B·D (+)
// volatile: the failure flag sync[0] is read with plain loads that always go to memory; the
// arrival counter is polled with atomic loads (grid_barrier.glsl).
layout(std430, set = 0, binding = 4) coherent volatile buffer Sync { uint sync[]; };  // [0] error
layout(std430, set = 0, binding = 5) writeonly buffer History { double history[]; };  // H·B·D

#include "batched_persistent_params.glsl"  // BatchedPersistentPushConstants (tiles = all tiles)

// The plane of `states` the products read: the previous step's (step 0: plane 1, the input).
uint in_base;
#define TILE_DIM params.dim
#define TILE_ROWS params.rows
#define TILE_CHUNKS params.chunks
#define TILE_BLOCK_CHUNKS params.chunks
#define TILE_BLOCKS 1u
#define TILE_Z(i) states[in_base + (i)]
#define TILE_SCRATCH states  // never read: no tree slots in memory here (the host)
#include "batched_tile_core.glsl"  // the specialization constants, stages and TileProducts
#include "grid_barrier.glsl"       // GridBarrier: the device-wide barrier between steps
#include "history_ring.glsl"       // HistorySlot

void main() {
  const uint dim = params.dim;
  const uint rows = params.rows;
  const uint tx = gl_LocalInvocationID.x;
  const uint ty = gl_LocalInvocationID.y;
  const uint l = ty * kThreadsX + tx;
  const uint g = gl_LocalInvocationID.z;
  const uint groups = gl_NumWorkGroups.x;
  const uint col_tiles = (dim + kTileCols - 1u) / kTileCols;
  const uint state_size = rows * dim;
  if (gl_LocalInvocationIndex == 0u) grid_failed = 0u;

  for (uint step = 0u; step < params.steps; ++step) {
    in_base = ((step - 1u) & 1u) * state_size;  // step 0: plane 1
    const uint out_base = (step & 1u) * state_size;
    const bool last = step + 1u == params.steps;
    const bool history_now = params.history_from != 0u && step + 1u >= params.history_from;
    for (uint t = gl_WorkGroupID.x; t < params.tiles; t += groups) {
      if (t != gl_WorkGroupID.x) barrier();  // the previous tile's reads of the stages are done
      const uint b0 = (t / col_tiles) * kTileRows;
      const uint j0 = (t - (t / col_tiles) * col_tiles) * kTileCols;
      TileProducts(j0, b0, 0u, tx, ty, l, g);
      if (g == 0u) {
        [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) {
          const uint b = b0 + OutRow(ty, r);
          [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) {
            const uint j = j0 + OutCol(tx, n);
            if (b < rows && j < dim) {
              const uint at = b * dim + j;
              const double v = acc[r * kColsPerThread + n];
              states[out_base + at] = v;
              if (last) z_out[at] = v;
              if (history_now) history[HistorySlot(step + 1u) * state_size + at] = v;
            }
          }
        }
      }
    }
    if (!last && !GridBarrier((step + 1u) * groups)) return;  // uniform
  }
}
