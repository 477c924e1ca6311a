// The shapes where reduction and tiling bugs live, generated once so that every kernel's cases get
// them by construction (XNNPACK-style): a new contraction kernel registers its parity cases over
// ContractionSweepDims() and inherits every chunk count that exercises the pairwise tree.
//
// The canonical contraction (docs/MATH.md) splits D into m = ⌈D/64⌉ chunks and folds their
// partials with a binary counter; the final fold only matters when m has three or more set bits,
// a carry chain only when m = 2^k − 1 → 2^k, a new tree level only at m = 2^k + 1, and the partial
// last chunk only when 64 ∤ D.
#ifndef DASHI_CONFORMANCE_FRAMEWORK_SWEEP_SHAPES_H_
#define DASHI_CONFORMANCE_FRAMEWORK_SWEEP_SHAPES_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace dashi::conformance {

inline constexpr int64_t kContractionChunk = 64;

// Chunk counts m ≤ max_chunks: 1..5, every m with three or four set bits up to 15 (7, 11, 13, 14,
// 15), and 2^k − 1, 2^k, 2^k + 1 for every power 2^k ≤ max_chunks + 1. Sorted, unique.
std::vector<int64_t> ChunkCountSweep(int64_t max_chunks);

// Dimensions D ≤ max_dim, sorted and unique: the edges 1, 63, 64, 65, 127, 128, 129, 200, 1000;
// D = 64m for every m of ChunkCountSweep (a full last chunk); and D = 64(m − 1) + 1 (a last chunk
// of one element) for every such m with three or more set bits.
std::vector<int64_t> ContractionSweepDims(int64_t max_dim);

// Grids (rows, cols) where 2D kernels' bugs live, for workgroup size w: 1×1 and tiny grids, 1×n
// and n×1 with n around w, k·w + r cells, odd, prime and non-square grids, wide (3×257) and tall
// (257×3) ones, one 128×128. Every carrier kernel's cases run over these.
std::vector<std::pair<int64_t, int64_t>> GridSweepShapes(int64_t w);

// Workgroups G for a persistent kernel's straggler case. Its `units` work units (output tiles,
// column slices, (chunk, column tile) pairs) are dealt out as u = g, g + G, …; G = units − 1
// gives workgroup 0 two units and every other one, so workgroup 0 reaches every device-wide
// barrier last, a whole unit behind the others: a barrier that let them go one arrival early
// would have them read what it has not written yet (a planted bug that only these cases catch
// in the single-trajectory, column-slice and tiled persistent kernels: docs/CONFORMANCE.md).
// All G must be resident together, so G = min(units − 1, sm_count) — below units − 1 there is
// no single straggler —, and 1 where the device does not report its SM count (sm_count = 0) or
// units < 2.
uint32_t StragglerGroups(uint32_t units, uint32_t sm_count);

}  // namespace dashi::conformance

#endif  // DASHI_CONFORMANCE_FRAMEWORK_SWEEP_SHAPES_H_
