#include "core_ref/rollout/vecmat.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>

namespace dashi {
namespace {

// x86-64 builds with GCC or Clang also compile the kernel for AVX2 and AVX-512F through function
// target attributes and pick one at run time. Only vector width changes: each lane still does the
// same IEEE multiplies and adds in the same order (and -ffp-contract=off forbids FMA contraction
// in every variant), so all paths give identical bits.
#if defined(__x86_64__) && defined(__GNUC__)
#define DASHI_VECMAT_X86_PATHS 1
#else
#define DASHI_VECMAT_X86_PATHS 0
#endif

#if defined(__GNUC__)
#define DASHI_VECMAT_INLINE inline __attribute__((always_inline))
#define DASHI_RESTRICT __restrict__
#else
#define DASHI_VECMAT_INLINE inline
#define DASHI_RESTRICT
#endif

// Inner loops run over fixed blocks of kLanes outputs: a compile-time trip count is what GCC's
// -O2 ("very cheap") vectoriser accepts. The tail (< kLanes outputs) runs the same statements
// scalar.
constexpr int64_t kLanes = 8;
// Outputs j are processed in blocks of this many so the accumulators stay in L1.
constexpr int64_t kColumnBlock = 1024;

// acc[j] (=|+=) z[0]·a0[j] + … + z[7]·a7[j], added one product at a time in row order. With
// kFirst the accumulator starts from the first product (acc = z0·a0[j]); otherwise from acc[j].
template <bool kFirst>
DASHI_VECMAT_INLINE void Rows8(double* DASHI_RESTRICT acc, const double* DASHI_RESTRICT a,
                               int64_t stride, const double* DASHI_RESTRICT z, int64_t w) {
  const double* DASHI_RESTRICT a0 = a;
  const double* DASHI_RESTRICT a1 = a + stride;
  const double* DASHI_RESTRICT a2 = a + 2 * stride;
  const double* DASHI_RESTRICT a3 = a + 3 * stride;
  const double* DASHI_RESTRICT a4 = a + 4 * stride;
  const double* DASHI_RESTRICT a5 = a + 5 * stride;
  const double* DASHI_RESTRICT a6 = a + 6 * stride;
  const double* DASHI_RESTRICT a7 = a + 7 * stride;
  const double z0 = z[0], z1 = z[1], z2 = z[2], z3 = z[3];
  const double z4 = z[4], z5 = z[5], z6 = z[6], z7 = z[7];
  int64_t j = 0;
  for (; j + kLanes <= w; j += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) {
      const int64_t x = j + k;
      double s = kFirst ? z0 * a0[x] : acc[x] + z0 * a0[x];
      s = s + z1 * a1[x];
      s = s + z2 * a2[x];
      s = s + z3 * a3[x];
      s = s + z4 * a4[x];
      s = s + z5 * a5[x];
      s = s + z6 * a6[x];
      s = s + z7 * a7[x];
      acc[x] = s;
    }
  }
  for (; j < w; ++j) {
    double s = kFirst ? z0 * a0[j] : acc[j] + z0 * a0[j];
    s = s + z1 * a1[j];
    s = s + z2 * a2[j];
    s = s + z3 * a3[j];
    s = s + z4 * a4[j];
    s = s + z5 * a5[j];
    s = s + z6 * a6[j];
    s = s + z7 * a7[j];
    acc[j] = s;
  }
}

// One row: acc[j] = z0·a0[j] (kFirst) or acc[j] = acc[j] + z0·a0[j].
template <bool kFirst>
DASHI_VECMAT_INLINE void Row1(double* DASHI_RESTRICT acc, const double* DASHI_RESTRICT a0,
                              double z0, int64_t w) {
  int64_t j = 0;
  for (; j + kLanes <= w; j += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) {
      const int64_t x = j + k;
      acc[x] = kFirst ? z0 * a0[x] : acc[x] + z0 * a0[x];
    }
  }
  for (; j < w; ++j) acc[j] = kFirst ? z0 * a0[j] : acc[j] + z0 * a0[j];
}

// left[j] = left[j] + right[j] (one tree addition; left is the lower-indexed operand).
DASHI_VECMAT_INLINE void AddInto(double* DASHI_RESTRICT left, const double* DASHI_RESTRICT right,
                                 int64_t w) {
  int64_t j = 0;
  for (; j + kLanes <= w; j += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) left[j + k] = left[j + k] + right[j + k];
  }
  for (; j < w; ++j) left[j] = left[j] + right[j];
}

// Number of partial-sum slots the binary-counter tree needs: after chunk c is pushed the stack
// holds popcount(c) + 1 ≤ bit_width(m − 1) + 1 entries.
int64_t TreeSlots(int64_t chunks) {
  return static_cast<int64_t>(std::bit_width(static_cast<uint64_t>(chunks - 1))) + 1;
}

int64_t ColumnBlock(int64_t dim) { return std::min(kColumnBlock, dim); }

// The kernel body, inlined into one function per ISA. `scratch` holds TreeSlots(m) slots of
// ColumnBlock(dim) doubles.
//
// For a block of outputs [j0, j0 + w): chunk c accumulates into slot `depth` (rows of the chunk
// in increasing order, eight at a time while possible). Then, like incrementing a binary counter,
// while the number of chunks completed so far (c + 1) has a trailing zero bit (i.e. while c has
// a trailing one bit), the top two slots merge: slot[depth−1] = slot[depth−1] + slot[depth].
// This forms exactly the pairs of the contract's level-by-level tree, whose nodes are the aligned
// blocks of 2^k chunks clipped to [0, m). At the end the stack holds the aligned power-of-two
// blocks of m's binary expansion, largest first; the contract's tree adds them right to left:
// slot[k] = slot[k] + slot[k+1] for k = top−1 down to 0.
DASHI_VECMAT_INLINE void MultiplyBody(const double* DASHI_RESTRICT z,
                                      const double* DASHI_RESTRICT a, int64_t dim,
                                      double* DASHI_RESTRICT y, double* DASHI_RESTRICT scratch) {
  const int64_t chunks = (dim + kRolloutChunk - 1) / kRolloutChunk;
  const int64_t block = ColumnBlock(dim);
  for (int64_t j0 = 0; j0 < dim; j0 += block) {
    const int64_t w = std::min(block, dim - j0);
    int64_t depth = 0;  // slots in use
    for (int64_t c = 0; c < chunks; ++c) {
      double* acc = scratch + depth * block;
      const int64_t i0 = c * kRolloutChunk;
      const int64_t i1 = std::min(i0 + kRolloutChunk, dim);
      const double* row = a + i0 * dim + j0;
      int64_t i = i0;
      if (i1 - i0 >= 8) {
        Rows8<true>(acc, row, dim, z + i, w);
        i += 8;
      } else {
        Row1<true>(acc, row, z[i], w);
        i += 1;
      }
      for (; i + 8 <= i1; i += 8) Rows8<false>(acc, a + i * dim + j0, dim, z + i, w);
      for (; i < i1; ++i) Row1<false>(acc, a + i * dim + j0, z[i], w);
      ++depth;
      for (int64_t n = c; (n & 1) != 0; n >>= 1) {
        AddInto(scratch + (depth - 2) * block, scratch + (depth - 1) * block, w);
        --depth;
      }
    }
    for (int64_t k = depth - 2; k >= 0; --k) {
      AddInto(scratch + k * block, scratch + (k + 1) * block, w);
    }
    std::memcpy(y + j0, scratch, static_cast<size_t>(w) * sizeof(double));
  }
}

void MultiplyBaseline(const double* z, const double* a, int64_t dim, double* y, double* scratch) {
  MultiplyBody(z, a, dim, y, scratch);
}

#if DASHI_VECMAT_X86_PATHS
__attribute__((target("avx2"))) void MultiplyAvx2(const double* z, const double* a, int64_t dim,
                                                  double* y, double* scratch) {
  MultiplyBody(z, a, dim, y, scratch);
}

__attribute__((target("avx512f"))) void MultiplyAvx512(const double* z, const double* a,
                                                       int64_t dim, double* y, double* scratch) {
  MultiplyBody(z, a, dim, y, scratch);
}
#endif

bool Overlaps(const void* p, size_t p_bytes, const void* q, size_t q_bytes) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const auto b = reinterpret_cast<uintptr_t>(q);
  if (p_bytes == 0 || q_bytes == 0) return false;
  return a < b + q_bytes && b < a + p_bytes;
}

Status CheckShapes(std::span<const double> z, std::span<const double> a, std::span<double> y) {
  const size_t dim = z.size();
  if (dim == 0) return InvalidArgumentError("z·A: z is empty (the dimension D must be >= 1)");
  if (a.size() % dim != 0 || a.size() / dim != dim) {
    return InvalidArgumentError("z·A: A has " + std::to_string(a.size()) +
                                " entries but D = " + std::to_string(dim) + " needs D*D = " +
                                std::to_string(dim) + "*" + std::to_string(dim));
  }
  if (y.size() != dim) {
    return InvalidArgumentError("z·A: y has " + std::to_string(y.size()) + " entries, expected D = " +
                                std::to_string(dim));
  }
  const size_t yb = y.size() * sizeof(double);
  if (Overlaps(y.data(), yb, z.data(), z.size() * sizeof(double)) ||
      Overlaps(y.data(), yb, a.data(), a.size() * sizeof(double))) {
    return InvalidArgumentError("z·A: the output y overlaps the input z or A");
  }
  return OkStatus();
}

}  // namespace

std::string_view VecMatPathName(VecMatPath path) {
  switch (path) {
    case VecMatPath::kBaseline:
      return "baseline";
    case VecMatPath::kAvx2:
      return "avx2";
    case VecMatPath::kAvx512:
      return "avx512f";
  }
  return "unknown";
}

bool VecMatPathAvailable(VecMatPath path) {
  switch (path) {
    case VecMatPath::kBaseline:
      return true;
#if DASHI_VECMAT_X86_PATHS
    case VecMatPath::kAvx2:
      return __builtin_cpu_supports("avx2");
    case VecMatPath::kAvx512:
      return __builtin_cpu_supports("avx512f");
#else
    case VecMatPath::kAvx2:
    case VecMatPath::kAvx512:
      return false;
#endif
  }
  return false;
}

VecMatPath BestVecMatPath() {
  static const VecMatPath best = [] {
    if (VecMatPathAvailable(VecMatPath::kAvx512)) return VecMatPath::kAvx512;
    if (VecMatPathAvailable(VecMatPath::kAvx2)) return VecMatPath::kAvx2;
    return VecMatPath::kBaseline;
  }();
  return best;
}

StatusOr<VecMatWorkspace> VecMatWorkspace::Create(VecMatPath path) {
  if (!VecMatPathAvailable(path)) {
    return UnimplementedError("z·A kernel path '" + std::string(VecMatPathName(path)) +
                              "' is not available on this machine");
  }
  return VecMatWorkspace(path);
}

void VecMatWorkspace::Multiply(const double* z, const double* a, int64_t dim, double* y) {
  const int64_t chunks = (dim + kRolloutChunk - 1) / kRolloutChunk;
  const size_t need = static_cast<size_t>(TreeSlots(chunks) * ColumnBlock(dim));
  if (scratch_.size() < need) scratch_.resize(need);
  switch (path_) {
#if DASHI_VECMAT_X86_PATHS
    case VecMatPath::kAvx512:
      MultiplyAvx512(z, a, dim, y, scratch_.data());
      return;
    case VecMatPath::kAvx2:
      MultiplyAvx2(z, a, dim, y, scratch_.data());
      return;
#endif
    default:
      MultiplyBaseline(z, a, dim, y, scratch_.data());
      return;
  }
}

Status CanonicalVecMat(std::span<const double> z, std::span<const double> a, std::span<double> y) {
  return CanonicalVecMat(z, a, y, BestVecMatPath());
}

Status CanonicalVecMat(std::span<const double> z, std::span<const double> a, std::span<double> y,
                       VecMatPath path) {
  DASHI_RETURN_IF_ERROR(CheckShapes(z, a, y));
  try {
    StatusOr<VecMatWorkspace> ws = VecMatWorkspace::Create(path);
    if (!ws.ok()) return ws.status();
    ws->Multiply(z.data(), a.data(), static_cast<int64_t>(z.size()), y.data());
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("z·A: out of memory for the scratch buffer");
  } catch (const std::exception& e) {
    return InternalError(std::string("z·A: unexpected exception: ") + e.what());
  }
  return OkStatus();
}

Status CanonicalVecMatScalar(std::span<const double> z, std::span<const double> a,
                             std::span<double> y) {
  DASHI_RETURN_IF_ERROR(CheckShapes(z, a, y));
  const int64_t dim = static_cast<int64_t>(z.size());
  const int64_t chunks = (dim + kRolloutChunk - 1) / kRolloutChunk;
  try {
    std::vector<double> level(static_cast<size_t>(chunks));
    for (int64_t j = 0; j < dim; ++j) {
      // 1. chunk partials, each a sequential sum starting from its first product.
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t i0 = c * kRolloutChunk;
        const int64_t i1 = std::min(i0 + kRolloutChunk, dim);
        double acc = z[i0] * a[i0 * dim + j];
        for (int64_t i = i0 + 1; i < i1; ++i) acc = acc + z[i] * a[i * dim + j];
        level[c] = acc;
      }
      // 2. level-by-level pairwise tree, odd last element carried.
      int64_t n = chunks;
      while (n > 1) {
        int64_t out = 0;
        for (int64_t q = 0; q + 1 < n; q += 2) level[out++] = level[q] + level[q + 1];
        if (n % 2 == 1) level[out++] = level[n - 1];
        n = out;
      }
      y[j] = level[0];
    }
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("z·A: out of memory");
  }
  return OkStatus();
}

}  // namespace dashi
