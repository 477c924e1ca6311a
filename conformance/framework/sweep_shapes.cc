#include "conformance/framework/sweep_shapes.h"

#include <algorithm>
#include <bit>

namespace dashi::conformance {

std::vector<int64_t> ChunkCountSweep(int64_t max_chunks) {
  std::vector<int64_t> m;
  for (int64_t c = 1; c <= std::min<int64_t>(max_chunks, 15); ++c) {
    if (c <= 5 || std::popcount(static_cast<uint64_t>(c)) >= 3) m.push_back(c);
  }
  for (int64_t p = 4; p <= max_chunks + 1; p *= 2) {
    for (int64_t c : {p - 1, p, p + 1}) {
      if (c <= max_chunks) m.push_back(c);
    }
  }
  std::sort(m.begin(), m.end());
  m.erase(std::unique(m.begin(), m.end()), m.end());
  return m;
}

std::vector<int64_t> ContractionSweepDims(int64_t max_dim) {
  std::vector<int64_t> d = {1, 63, 64, 65, 127, 128, 129, 200, 1000};
  for (int64_t m : ChunkCountSweep(max_dim / kContractionChunk)) {
    d.push_back(kContractionChunk * m);
    if (std::popcount(static_cast<uint64_t>(m)) >= 3) d.push_back(kContractionChunk * (m - 1) + 1);
  }
  d.erase(std::remove_if(d.begin(), d.end(), [&](int64_t x) { return x > max_dim; }), d.end());
  std::sort(d.begin(), d.end());
  d.erase(std::unique(d.begin(), d.end()), d.end());
  return d;
}

std::vector<std::pair<int64_t, int64_t>> GridSweepShapes(int64_t w) {
  const int64_t W = w;
  return {{1, 1},     {1, 2},     {2, 1},   {2, 2},         {3, 3},     {1, W - 1},     {1, W},
          {1, W + 1}, {W - 1, 1}, {W, 1},   {W + 1, 1},     {5, 7},     {2, 2 * W + 3}, {3, W + 7},
          {17, 33},   {33, 17},   {48, 64}, {W + 1, W - 1}, {31, 37},   {3, 257},       {257, 3},
          {128, 128}};
}

uint32_t StragglerGroups(uint32_t units, uint32_t sm_count) {
  if (sm_count == 0 || units < 2) return 1;
  return std::min(units - 1, sm_count);
}

}  // namespace dashi::conformance
