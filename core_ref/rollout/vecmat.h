// The canonical vector–matrix product y = z·A of the rollout: a fixed fp64 summation order that
// every backend (this CPU reference, the Vulkan shader) reproduces bit for bit, implemented
// vectorised over the output index j, plus a literal scalar implementation of the same contract.
//
//   std::vector<double> y(dim);
//   DASHI_RETURN_IF_ERROR(CanonicalVecMat(z, a, y));          // checked, allocates scratch
//
//   VecMatWorkspace ws;                                        // hot loops: reuse the scratch
//   ws.Multiply(z.data(), a.data(), dim, y.data());            // unchecked
//
// THE CONTRACT (docs/MATH.md, "Canonical summation order of z·A").
// z is a row vector of length D ≥ 1, A a D×D row-major fp64 matrix (A[i][j] at a[i·D + j]), and
// y[j] = Σ_i z[i]·A[i][j] is evaluated, independently for every j, as follows. C = kRolloutChunk
// = 64, m = ceil(D / C). Chunk c (0 ≤ c < m) covers i ∈ [cC, min((c+1)C, D)).
//   1. Chunk partial p_c: with i0 = cC, acc = z[i0]·A[i0][j]; then for i = i0+1, i0+2, … up to
//      the end of the chunk, in increasing order, acc = acc + z[i]·A[i][j]. Every product is
//      rounded to fp64 before the addition (no FMA: -ffp-contract=off here, `precise` in GLSL).
//      The accumulator starts from the first product, not from 0 (0 + (−0) would be +0).
//   2. Pairwise tree over the partials: L = (p_0, …, p_{m−1}); while |L| > 1, replace L by
//      (L0+L1, L2+L3, …), an odd last element carried to the next level unchanged; the left
//      operand of every addition is the lower-indexed one. y[j] is the one remaining value.
// Every operation is an IEEE-754 binary64 multiply or add in round-to-nearest-even.
//
// Implementation note (no effect on results): the tree is evaluated as a binary counter (merge
// two equal-size subtrees as soon as the second is complete; at the end fold the remaining stack
// right to left), which forms exactly the same additions; j is processed in contiguous blocks so
// each lane keeps the per-j order above. Compiled for the baseline ISA and, on x86-64 with GCC or
// Clang, also for AVX2 and AVX-512F (chosen at run time); all paths give identical bits, which
// the tests check against CanonicalVecMatScalar on every path the CPU supports.
#ifndef DASHI_CORE_REF_ROLLOUT_VECMAT_H_
#define DASHI_CORE_REF_ROLLOUT_VECMAT_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

// C in the contract: the number of rows of A summed sequentially into one chunk partial.
inline constexpr int64_t kRolloutChunk = 64;

// Machine-code variants of the same kernel. They differ in speed only, never in results.
enum class VecMatPath {
  kBaseline,  // the build's default ISA (SSE2 on x86-64)
  kAvx2,      // x86-64 AVX2 (256-bit vectors)
  kAvx512,    // x86-64 AVX-512F (512-bit vectors)
};

// "baseline", "avx2", "avx512f".
std::string_view VecMatPathName(VecMatPath path);
// True when the path is compiled into this build and the CPU (and OS) supports it.
bool VecMatPathAvailable(VecMatPath path);
// The fastest available path (what CanonicalVecMat and Rollout use).
VecMatPath BestVecMatPath();

// Reusable scratch for the fast kernel (about (log2(m) + 2) · min(D, 1024) doubles).
class VecMatWorkspace {
 public:
  VecMatWorkspace() : VecMatWorkspace(BestVecMatPath()) {}
  // UNIMPLEMENTED when `path` is not available on this machine.
  static StatusOr<VecMatWorkspace> Create(VecMatPath path);

  // y = z·A by the contract. Unchecked: dim ≥ 1, z has dim entries, a has dim·dim, y has dim,
  // and y overlaps neither z nor a. Non-finite inputs simply propagate (IEEE arithmetic).
  void Multiply(const double* z, const double* a, int64_t dim, double* y);

  VecMatPath path() const { return path_; }

 private:
  explicit VecMatWorkspace(VecMatPath path) : path_(path) {}
  VecMatPath path_;
  std::vector<double> scratch_;
};

// y = z·A by the contract with the best path. INVALID_ARGUMENT when z is empty, a.size() ≠ D²,
// y.size() ≠ D (D = z.size()), or y overlaps z or a. Values are not checked for finiteness.
Status CanonicalVecMat(std::span<const double> z, std::span<const double> a, std::span<double> y);
// Same with an explicit path; UNIMPLEMENTED when the path is not available.
Status CanonicalVecMat(std::span<const double> z, std::span<const double> a, std::span<double> y,
                       VecMatPath path);

// The contract written out literally, one output j at a time (chunk partials into a list, then
// the level-by-level pairwise reduction). Slow; the oracle the fast kernel is tested against.
// Same argument checks as CanonicalVecMat.
Status CanonicalVecMatScalar(std::span<const double> z, std::span<const double> a,
                             std::span<double> y);

}  // namespace dashi

#endif  // DASHI_CORE_REF_ROLLOUT_VECMAT_H_
