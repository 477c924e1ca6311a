// Deterministic fp64 FFTs (docs/MATH.md §FFT).
//
// Algorithm: iterative decimation-in-time, bit-reversed input, natural-order output. A radix-2
// stage without twiddles first when log2(n) is odd, then radix-4 stages of sub-length
// m = 1 or 2, 4m, 16m, ... Every transform runs on a "block": B independent vectors of one length
// n stored split (real parts in re[], imaginary parts in im[]) and interleaved by lane, element i
// of lane l at index i·B + l. Each butterfly then applies one twiddle to B consecutive doubles,
// a loop the compiler vectorises. Every lane performs exactly the same IEEE operations in the
// same order (no reassociation, no FMA: -ffp-contract=off), so the result of a lane depends
// neither on B, nor on the vector width, nor on the other lanes of its block: a row of a 2D
// transform is bit-identical to Fft1d on that row (fft_test checks this).
//
// The 1D transform uses B = 1. The 2D row pass gathers kBlock rows (with the bit-reversal
// permutation folded into the gather) and the column pass gathers kBlock adjacent columns, so the
// butterflies always run on contiguous memory. Real 2D transforms pack two real rows into one
// complex row (z = x + i·y) and separate the two half spectra after the row FFT.
// Stages are run depth first over cache-sized pieces, and large 1D permutations are tiled; both
// only reorder independent operations, never change one.
//
// With 8 lanes and GCC (DASHI_FFT_V8; the vector type V8 is one AVX-512 register), passes are
// fused so that each element goes through memory fewer times: the row passes move data between
// row-major storage and blocks with 8×8 register transposes (on x86-64 the loading ones with
// their 256-bit step done by 256-bit loads, in functions compiled for AVX-512F); the radix-2
// stage and the next radix-4 stage run as one 8-element register pass; pairs of radix-4 stages
// (m, 4m) run as one 16-element register pass; the column pass does its first stage(s) while
// gathering and its last stage(s) while writing back. Every fused butterfly is the unfused
// one's, with the same inputs and the same per-lane operations, so the bits are the same:
// fft_golden_scalar_test builds the library without these paths (DASHI_FFT_NO_V8) and checks
// the same golden hashes.
//
// Inverse transforms reuse the forward code on swapped arrays: with swap(a + ib) = b + ia,
// IDFT_unscaled(x) = swap(DFT(swap(x))), and in split storage swap is just exchanging the re and
// im pointers. This performs exactly the operations of a DFT with conjugated twiddles. The 1/N
// scale (an exact power of two) is one multiplication per output, applied in the last pass.
//
// Vector width: with GCC on x86-64 the 2D passes are compiled three times (function
// multiversioning: AVX-512F, AVX2, baseline SSE2) and the loader picks one for the CPU. The
// variants differ only in how many lanes one instruction processes: the same per-lane IEEE
// operations, never an FMA (contraction is off for this library, see BUILD), hence the same bits.
// fft_golden_test checks golden output hashes, and fft_golden_portable_test checks the same
// hashes with the multiversioning compiled out (DASHI_FFT_PORTABLE).
#include "core_ref/fft/fft.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(DASHI_FFT_NO_V8)
// GCC 12 warns (falsely) on the intrinsics that start from an undefined register.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#include "core_ref/fft/aligned_vector.h"
#include "core_ref/math/sincospi.h"
#include "core_ref/parallel/thread_pool.h"

namespace dashi {
namespace {

constexpr size_t kMaxLength = size_t{1} << 20;
constexpr size_t kMaxElements2d = size_t{1} << 30;
// Lanes per block in the 2D passes: kBlock columns (or rows) are transformed together.
constexpr size_t kBlock = 8;

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(DASHI_FFT_PORTABLE)
#define DASHI_FFT_MULTIVERSION __attribute__((target_clones("avx512f", "avx2", "default")))
#define DASHI_FFT_CLONES 1
#else
#define DASHI_FFT_MULTIVERSION
#define DASHI_FFT_CLONES 0
#endif
#if defined(__GNUC__)
#define DASHI_FFT_INLINE inline __attribute__((always_inline))
#else
#define DASHI_FFT_INLINE inline
#endif

int Log2(size_t n) {
  int k = 0;
  while ((size_t{1} << k) < n) ++k;
  return k;
}

// -0.0 → +0.0, so that the tables hold no negative zeros.
double CleanZero(double x) { return x == 0.0 ? 0.0 : x; }

// Where row r of a 2D array starts, in complex values: rows come in tiles of 2^shift rows,
// `row` apart inside a tile and `tile` apart from one tile to the next. A plain array of row
// stride s is {s, kNoTiles, 0}.
constexpr unsigned kNoTiles = 40;  // more rows than any array has: one tile
struct RowStep {
  size_t row;
  unsigned shift;
  size_t tile;
  size_t At(size_t r) const {
    return (r >> shift) * tile + (r & ((size_t{1} << shift) - 1)) * row;
  }
};

// A half spectrum's strides in complex values (HalfLayout, fft.h): bin k of row r at
// rows.At(r) + Bin(k). Row-major: rows = {cols/2 + 1, no tiles}, block = 8 (Bin(k) = k); tiled:
// rows = {8, tiles of R = min(16, rows) rows, ⌈(cols/2 + 1)/8⌉·8·R apart}, block = 8·R. Four
// consecutive bins from a multiple of 4 are consecutive in both, and the rows of a block of 16
// (from a multiple of 16) are `rows.row` apart.
struct HalfStrides {
  RowStep rows;
  size_t block;
  size_t Bin(size_t k) const { return (k / kBlock) * block + k % kBlock; }
};

HalfStrides StridesOf(HalfLayout layout, size_t rows, size_t half) {
  const size_t blocks = (half + kBlock - 1) / kBlock;
  if (layout == HalfLayout::kRowMajor) return {{half, kNoTiles, 0}, kBlock};
  const size_t tile_rows = std::min<size_t>(2 * kBlock, rows);
  return {{kBlock, static_cast<unsigned>(Log2(tile_rows)), blocks * kBlock * tile_rows},
          kBlock * tile_rows};
}

// Twiddles W_n^k = e^{-2πi k/n} for a power of two n, 0 ≤ k < n.
//
// Computed directly for every k (no recurrence): the angle θ = 2πk/n is reduced exactly, in
// integers, to θ = q·π/2 + θ' with θ' = (r/n)·π/2, r = 4k mod n (0 or a multiple of 4); θ' is
// then folded to φ = (a/n)·π/2 ≤ π/4 (a = r, or a = n − r using cos θ' = sin(π/2 − θ')).
// cos φ and sin φ are tabulated for a = 4u, u = 0..n/8, as CosPi / SinPi of the exact argument
// φ/π = 2u/n (a power-of-two denominator): correctly rounded (core_ref/math), hence the same
// table on every platform. The quadrant rotation only swaps and negates, which is exact.
// Hence exact symmetries (W^{k+n/4} = −i·W^k, W^{n/2} = −1, |Re W^{n/8}| = |Im W^{n/8}|) and
// no negative zeros.
class TwiddleTable {
 public:
  explicit TwiddleTable(size_t n) : n_(n) {
    const size_t entries = n >= 8 ? n / 8 + 1 : 1;
    cos_.resize(entries);
    sin_.resize(entries);
    for (size_t u = 0; u < entries; ++u) {
      const SinCos w = SinCosPi(static_cast<double>(2 * u) / static_cast<double>(n));  // exact
      cos_[u] = w.cos;
      sin_[u] = w.sin;
    }
  }

  // W_n^k as (re, im).
  void Get(size_t k, double* re, double* im) const {
    k &= n_ - 1;
    const uint64_t four_k = 4 * static_cast<uint64_t>(k);
    const uint64_t q = four_k / n_;  // quadrant 0..3
    const uint64_t r = four_k % n_;  // θ' = (r/n)·π/2 ∈ [0, π/2)
    const bool upper = 2 * r > n_;   // θ' > π/4: fold
    const uint64_t a = upper ? n_ - r : r;
    const double cp = cos_[a / 4], sp = sin_[a / 4];
    const double c = upper ? sp : cp, s = upper ? cp : sp;  // cos θ', sin θ'
    double cq, sq;                                          // cos θ, sin θ
    switch (q) {
      case 0:
        cq = c;
        sq = s;
        break;
      case 1:
        cq = -s;
        sq = c;
        break;
      case 2:
        cq = -c;
        sq = -s;
        break;
      default:
        cq = s;
        sq = -c;
        break;
    }
    *re = CleanZero(cq);
    *im = CleanZero(-sq);
  }

 private:
  size_t n_;
  std::vector<double> cos_, sin_;
};

// --- 8×8 transposes ---------------------------------------------------------------------------
// The passes below move data between row-major storage and the lane-interleaved blocks (kBlock = 8
// lanes) with 8×8 transposes of doubles in vector registers: pure data movement, and where a
// value is also scaled or combined on the way, each lane gets exactly the scalar code's IEEE
// operation (an elementwise vector operation is lane by lane), so no bit changes. V8 is a GCC
// generic vector: one zmm register in the AVX-512F variant, lowered to narrower code otherwise.
#if defined(__GNUC__) && !defined(__clang__) && !defined(DASHI_FFT_NO_V8)
#define DASHI_FFT_V8 1
// V8 values only live inside always-inline helpers and the AVX-512F functions: the ABI note on
// passing them is moot (off for the rest of this file; GCC also reports it at the file's end).
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__x86_64__)
// x86-64: the code that uses the transposes (the row passes' 8-lane paths) is compiled for
// AVX-512F whatever the build's flags (it runs only where UseV8, i.e. on a CPU with AVX-512F).
#define DASHI_FFT_X86_AVX512 1
#define DASHI_FFT_AVX512 __attribute__((target("avx512f")))
#else
#define DASHI_FFT_X86_AVX512 0
#define DASHI_FFT_AVX512
#endif
static_assert(kBlock == 8, "the transposes move blocks of 8 lanes");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // V8 values only live inside always-inline helpers
typedef double V8 __attribute__((vector_size(64), aligned(8)));
typedef long long V8Index __attribute__((vector_size(64)));

DASHI_FFT_INLINE V8 Load8(const double* p) {
  V8 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
DASHI_FFT_INLINE void Store8(double* p, V8 v) { __builtin_memcpy(p, &v, sizeof v); }
DASHI_FFT_INLINE V8 Broadcast8(double x) { return V8{x, x, x, x, x, x, x, x}; }

// In place on 4 registers: the 4×4 transposes inside each 256-bit half of (v0, v1, v2, v3),
// w[j] ← (v0[j], v1[j], v2[j], v3[j] | v0[j+4], v1[j+4], v2[j+4], v3[j+4]) for j = 0..3 — the
// first two (64- and 128-bit) steps of an 8×8 transpose.
DASHI_FFT_INLINE void Transpose4x4Halves(V8& v0, V8& v1, V8& v2, V8& v3) {
  const V8Index e1 = {0, 8, 2, 10, 4, 12, 6, 14}, o1 = {1, 9, 3, 11, 5, 13, 7, 15};
  const V8Index e2 = {0, 1, 8, 9, 4, 5, 12, 13}, o2 = {2, 3, 10, 11, 6, 7, 14, 15};
  const V8 b0 = __builtin_shuffle(v0, v1, e1), b1 = __builtin_shuffle(v0, v1, o1);
  const V8 b2 = __builtin_shuffle(v2, v3, e1), b3 = __builtin_shuffle(v2, v3, o1);
  v0 = __builtin_shuffle(b0, b2, e2);
  v2 = __builtin_shuffle(b0, b2, o2);
  v1 = __builtin_shuffle(b1, b3, e2);
  v3 = __builtin_shuffle(b1, b3, o2);
}

// In place: v[j][l] ← v[l][j] (v[l] read as row l of an 8×8 matrix): the 4×4 transposes of both
// register quadruples, then the 256-bit step across them.
DASHI_FFT_INLINE void Transpose8(V8& v0, V8& v1, V8& v2, V8& v3, V8& v4, V8& v5, V8& v6, V8& v7) {
  Transpose4x4Halves(v0, v1, v2, v3);
  Transpose4x4Halves(v4, v5, v6, v7);
  const V8Index e4 = {0, 1, 2, 3, 8, 9, 10, 11}, o4 = {4, 5, 6, 7, 12, 13, 14, 15};
  const V8 b0 = v0, b1 = v1, b2 = v2, b3 = v3;
  v0 = __builtin_shuffle(b0, v4, e4);
  v4 = __builtin_shuffle(b0, v4, o4);
  v1 = __builtin_shuffle(b1, v5, e4);
  v5 = __builtin_shuffle(b1, v5, o4);
  v2 = __builtin_shuffle(b2, v6, e4);
  v6 = __builtin_shuffle(b2, v6, o4);
  v3 = __builtin_shuffle(b3, v7, e4);
  v7 = __builtin_shuffle(b3, v7, o4);
}

#if DASHI_FFT_X86_AVX512
// LoadTransposed8 with the 256-bit step done by the loads. Transpose8 is three steps of 8
// two-input shuffles (64-, 128-, 256-bit granules); on Intel cores every 512-bit shuffle runs on
// one port (port 5), which also does half of the 512-bit adds and multiplies, and llvm-mca's
// model puts the real row passes' transpose loops at that port's limit (docs/PERF.md). Here the
// 256-bit step is a 256-bit load broadcast into a register's upper half under a mask
// (vbroadcastf64x4 from memory: a load and a port-0-or-5 micro-op): 16 shuffles instead of 24, and
// no stack round trips of the loaded rows (GCC spilled some in Transpose8's form). The same values
// land in the same places. Measured (docs/PERF.md, 2026-11-26 15:03): faster on the AMD
// development VM, no measurable change on the GPU host's Intel CPU. StoreTransposed8 keeps the
// register transposes: its 256-bit-store form measured slower on the AMD VM.

// (4 doubles at lo | 4 doubles at hi) in one register: a 256-bit load, and a 256-bit load
// broadcast into the upper half under a mask (vbroadcastf64x4 from memory: a load and a port-0-
// or-5 micro-op).
DASHI_FFT_AVX512 DASHI_FFT_INLINE V8 LoadHalves(const double* lo, const double* hi) {
  return (V8)_mm512_mask_broadcast_f64x4(_mm512_zextpd256_pd512(_mm256_loadu_pd(lo)), 0xF0,
                                         _mm256_loadu_pd(hi));
}

// v[j] ← the 8 doubles at src + j·stride, transposed: v[j][l] = src[l·stride + j].
DASHI_FFT_AVX512 DASHI_FFT_INLINE void LoadTransposed8(const double* src, size_t stride, V8* v) {
  // v[l] = (row l, elements 0..3 | row l + 4, elements 0..3), v[l + 4] the same for 4..7; then
  // the 4×4 transposes inside the halves give v[j] = (rows 0..3 | rows 4..7) of element j.
#pragma GCC unroll 4
  for (size_t l = 0; l < 4; ++l) {
    v[l] = LoadHalves(src + l * stride, src + (l + 4) * stride);
    v[l + 4] = LoadHalves(src + l * stride + 4, src + (l + 4) * stride + 4);
  }
  Transpose4x4Halves(v[0], v[1], v[2], v[3]);
  Transpose4x4Halves(v[4], v[5], v[6], v[7]);
}

#else
// v[j] ← the 8 doubles at src + j·stride, transposed: v[j][l] = src[l·stride + j].
DASHI_FFT_INLINE void LoadTransposed8(const double* src, size_t stride, V8* v) {
#pragma GCC unroll 8
  for (size_t j = 0; j < 8; ++j) v[j] = Load8(src + j * stride);
  Transpose8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}
#endif

// dst[l·stride + j] = v[j][l] (v is clobbered).
DASHI_FFT_INLINE void StoreTransposed8(V8* v, double* dst, size_t stride) {
  Transpose8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
#pragma GCC unroll 8
  for (size_t l = 0; l < 8; ++l) Store8(dst + l * stride, v[l]);
}
#pragma GCC diagnostic pop
#else
#define DASHI_FFT_V8 0
#define DASHI_FFT_X86_AVX512 0
#endif

// Whether the 8-lane paths run (decided once per process). They are compiled in with GCC, but
// pay only where a V8 is one register: in the AVX-512F clone (chosen by the loader when the CPU
// has AVX-512F), or in a build without clones whose flags enable AVX-512F. Lowered to AVX2 or
// SSE2 (the other clones, or a CPU without AVX-512) the same code was 5–7× *slower* than the
// plain loops (AMD EPYC, `-DDASHI_FFT_PORTABLE -mavx2` builds of main before and after the change:
// complex 256² 1221 vs 272 µs, docs/PERF.md), so there the plain loops run. Both give the same bits: fft_golden_scalar_test builds the library
// without the 8-lane paths, fft_golden_v8_off_test / _on_test force the choice below in the
// default build, and all check the same hashes. DASHI_FFT_V8=0 or 1 in the environment overrides
// the choice (1 only where the paths are compiled in and, on x86-64, where the CPU has AVX-512F:
// the row passes' 8-lane blocks are AVX-512F functions there, see DASHI_FFT_AVX512).
bool DetectV8() {
  if (!DASHI_FFT_V8) return false;
  if (const char* env = std::getenv("DASHI_FFT_V8"); env != nullptr && env[0] != '\0') {
    if (env[0] == '0') return false;
#if DASHI_FFT_X86_AVX512
    // The row passes' 8-lane paths are AVX-512F code on x86-64: forced on only where they can run.
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
#else
    return true;
#endif
  }
#if DASHI_FFT_CLONES
  __builtin_cpu_init();  // this may run before libgcc's own initialiser
  return __builtin_cpu_supports("avx512f") != 0;  // the clone the loader picks
#elif defined(__AVX512F__)
  return true;  // one build for the whole file, AVX-512F code
#else
  return false;
#endif
}
// Set before main (a plain load where it is read, no guard). A transform run by another static
// initialiser before this one would read false: the plain loops, the same bits.
const bool kUseV8 = DetectV8();
inline bool UseV8() { return kUseV8; }

// The radix-4 butterfly on values (T = double, or V8 lane by lane): inputs p0..p3 in (r0, i0) ..
// (r3, i3) as Butterfly4 below describes them, outputs written back in place. Every operation is
// one IEEE operation on each lane, in the same order for every T.
template <typename T, bool kTwiddle>
DASHI_FFT_INLINE void Butterfly4Values(T& r0, T& i0, T& r1, T& i1, T& r2, T& i2, T& r3, T& i3,
                                       const double* tw) {
  const T f0r = r0, f0i = i0;
  T f2r = r1, f2i = i1, f1r = r2, f1i = i2, f3r = r3, f3i = i3;
  if constexpr (kTwiddle) {
    const double w1r = tw[0], w1i = tw[1], w2r = tw[2], w2i = tw[3], w3r = tw[4], w3i = tw[5];
    const T b1r = w1r * f1r - w1i * f1i, b1i = w1r * f1i + w1i * f1r;
    const T b2r = w2r * f2r - w2i * f2i, b2i = w2r * f2i + w2i * f2r;
    const T b3r = w3r * f3r - w3i * f3i, b3i = w3r * f3i + w3i * f3r;
    f1r = b1r;
    f1i = b1i;
    f2r = b2r;
    f2i = b2i;
    f3r = b3r;
    f3i = b3i;
  }
  const T t0r = f0r + f2r, t0i = f0i + f2i;
  const T t1r = f0r - f2r, t1i = f0i - f2i;
  const T t2r = f1r + f3r, t2i = f1i + f3i;
  const T t3r = f1r - f3r, t3i = f1i - f3i;
  r0 = t0r + t2r;
  i0 = t0i + t2i;
  r2 = t0r - t2r;
  i2 = t0i - t2i;
  // −i·t3 = (t3i, −t3r)
  r1 = t1r + t3i;
  i1 = t1i - t3r;
  r3 = t1r - t3i;
  i3 = t1i + t3r;
}

#if DASHI_FFT_V8
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// Butterfly4<8, kTwiddle> on values in registers: the same operations lane by lane.
template <bool kTwiddle>
DASHI_FFT_INLINE void Butterfly4V(V8& r0, V8& i0, V8& r1, V8& i1, V8& r2, V8& i2, V8& r3, V8& i3,
                                  const double* tw) {
  Butterfly4Values<V8, kTwiddle>(r0, i0, r1, i1, r2, i2, r3, i3, tw);
}

// 8 complex values at src → (re, im), swapped when `swap` (the inverse's exchange).
DASHI_FFT_INLINE void LoadComplex8(const double* src, bool swap, V8& re, V8& im) {
  const V8 a = Load8(src), b = Load8(src + 8);
  const V8Index even = {0, 2, 4, 6, 8, 10, 12, 14}, odd = {1, 3, 5, 7, 9, 11, 13, 15};
  const V8 r = __builtin_shuffle(a, b, even), i = __builtin_shuffle(a, b, odd);
  re = swap ? i : r;
  im = swap ? r : i;
}

// (re, im) → 8 complex values at dst, exchanged back when `swap`, each part times `scale` when
// `scaled`.
DASHI_FFT_INLINE void StoreComplex8(V8 re, V8 im, bool swap, bool scaled, double scale,
                                    double* dst) {
  V8 r = swap ? im : re, i = swap ? re : im;
  if (scaled) {
    r = r * scale;
    i = i * scale;
  }
  const V8Index lo = {0, 8, 1, 9, 2, 10, 3, 11}, hi = {4, 12, 5, 13, 6, 14, 7, 15};
  Store8(dst, __builtin_shuffle(r, i, lo));
  Store8(dst + 8, __builtin_shuffle(r, i, hi));
}

// The radix-2 stage and the radix-4 stage of sub-length 2 on 8 consecutive elements, in registers:
// Butterfly2 on (0, 1), (2, 3), (4, 5), (6, 7), then Butterfly4 on (0, 2, 4, 6) without twiddle
// and on (1, 3, 5, 7) with that stage's j = 1 twiddles (tw2: the stage's table).
DASHI_FFT_INLINE void Radix2Radix4V(V8* r, V8* i, const double* tw2) {
#pragma GCC unroll 4
  for (size_t q = 0; q < 8; q += 2) {
    const V8 xr = r[q], xi = i[q], yr = r[q + 1], yi = i[q + 1];
    r[q] = xr + yr;
    i[q] = xi + yi;
    r[q + 1] = xr - yr;
    i[q + 1] = xi - yi;
  }
  Butterfly4V<false>(r[0], i[0], r[2], i[2], r[4], i[4], r[6], i[6], nullptr);
  Butterfly4V<true>(r[1], i[1], r[3], i[3], r[5], i[5], r[7], i[7], tw2 + 6);
}
#pragma GCC diagnostic pop
#endif  // DASHI_FFT_V8

// --- The block kernel -------------------------------------------------------------------------

// Radix-2 butterfly without twiddle on B lanes: (a, b) ← (a + b, a − b).
template <size_t B>
DASHI_FFT_INLINE void Butterfly2(double* __restrict ar, double* __restrict ai,
                                 double* __restrict br, double* __restrict bi) {
  for (size_t l = 0; l < B; ++l) {
    const double xr = ar[l], xi = ai[l], yr = br[l], yi = bi[l];
    ar[l] = xr + yr;
    ai[l] = xi + yi;
    br[l] = xr - yr;
    bi[l] = xi - yi;
  }
}

// Radix-4 DIT butterfly on B lanes. Inputs (bit-reversed layout): p0 = F0[j], p1 = F2[j],
// p2 = F1[j], p3 = F3[j], the length-m DFTs of the residues 0, 2, 1, 3 mod 4. With
// b0 = F0, b1 = w1·F1, b2 = w2·F2, b3 = w3·F3 (w_r = W_{4m}^{rj}) and t0 = b0 + b2,
// t1 = b0 − b2, t2 = b1 + b3, t3 = b1 − b3, the outputs are X[j] = t0 + t2,
// X[j+m] = t1 − i·t3, X[j+2m] = t0 − t2, X[j+3m] = t1 + i·t3, written back to p0..p3.
// A complex product is (wr·xr − wi·xi, wr·xi + wi·xr), each product rounded, then the sum.
template <size_t B, bool kTwiddle>
DASHI_FFT_INLINE void Butterfly4(double* __restrict r0, double* __restrict i0,
                                 double* __restrict r1, double* __restrict i1,
                                 double* __restrict r2, double* __restrict i2,
                                 double* __restrict r3, double* __restrict i3, const double* tw) {
  for (size_t l = 0; l < B; ++l) {
    double a0 = r0[l], b0 = i0[l], a1 = r1[l], b1 = i1[l];
    double a2 = r2[l], b2 = i2[l], a3 = r3[l], b3 = i3[l];
    Butterfly4Values<double, kTwiddle>(a0, b0, a1, b1, a2, b2, a3, b3, tw);
    r0[l] = a0;
    i0[l] = b0;
    r1[l] = a1;
    i1[l] = b1;
    r2[l] = a2;
    i2[l] = b2;
    r3[l] = a3;
    i3[l] = b3;
  }
}

// One radix-4 stage of sub-length m on the elements [begin, end) (a multiple of 4m long).
template <size_t B>
DASHI_FFT_INLINE void Radix4Stage(double* re, double* im, size_t begin, size_t end, size_t m,
                                  const double* tw) {
  const size_t mb = m * B;
  for (size_t k = begin; k < end; k += 4 * m) {
    double* r = re + k * B;
    double* i = im + k * B;
    Butterfly4<B, false>(r, i, r + mb, i + mb, r + 2 * mb, i + 2 * mb, r + 3 * mb, i + 3 * mb,
                         nullptr);
    for (size_t j = 1; j < m; ++j) {
      r += B;
      i += B;
      Butterfly4<B, true>(r, i, r + mb, i + mb, r + 2 * mb, i + 2 * mb, r + 3 * mb, i + 3 * mb,
                          tw + 6 * j);
    }
  }
}

#if DASHI_FFT_V8
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// Two consecutive radix-4 stages, sub-lengths m and 4m, on the elements [begin, end) (a multiple
// of 16m long) with 8 lanes, in registers: for each group of 16 elements k + j + a·m + b·4m
// (a, b = 0..3), the four butterflies of stage m (one per b, twiddles of j), then the four of
// stage 4m (one per a, twiddles of j + a·m). The group is closed under both stages, so every
// butterfly sees the inputs of Radix4Stage's order: the same bits, one pass fewer.
// The butterflies of Radix4PairV on one group held in registers (r[a + 4b], i[a + 4b] = element
// j + a·m + b·4m of the group).
DASHI_FFT_INLINE void Pair16V(V8* r, V8* i, size_t j, size_t m, const double* tm,
                              const double* t4m) {
#pragma GCC unroll 4
  for (size_t b = 0; b < 4; ++b) {
    const size_t q = 4 * b;
    if (j == 0) {
      Butterfly4V<false>(r[q], i[q], r[q + 1], i[q + 1], r[q + 2], i[q + 2], r[q + 3], i[q + 3],
                         nullptr);
    } else {
      Butterfly4V<true>(r[q], i[q], r[q + 1], i[q + 1], r[q + 2], i[q + 2], r[q + 3], i[q + 3],
                        tm + 6 * j);
    }
  }
#pragma GCC unroll 4
  for (size_t a = 0; a < 4; ++a) {
    if (j + a * m == 0) {
      Butterfly4V<false>(r[a], i[a], r[a + 4], i[a + 4], r[a + 8], i[a + 8], r[a + 12], i[a + 12],
                         nullptr);
    } else {
      Butterfly4V<true>(r[a], i[a], r[a + 4], i[a + 4], r[a + 8], i[a + 8], r[a + 12], i[a + 12],
                        t4m + 6 * (j + a * m));
    }
  }
}

DASHI_FFT_INLINE void Radix4PairV(double* re, double* im, size_t begin, size_t end, size_t m,
                                  const double* tm, const double* t4m) {
  constexpr size_t B = kBlock;
  for (size_t k = begin; k < end; k += 16 * m) {
    for (size_t j = 0; j < m; ++j) {
      V8 r[16], i[16];  // index a + 4b
#pragma GCC unroll 16
      for (size_t q = 0; q < 16; ++q) {
        const size_t pos = k + j + (q & 3) * m + (q >> 2) * 4 * m;
        r[q] = Load8(re + pos * B);
        i[q] = Load8(im + pos * B);
      }
      Pair16V(r, i, j, m, tm, t4m);
#pragma GCC unroll 16
      for (size_t q = 0; q < 16; ++q) {
        const size_t pos = k + j + (q & 3) * m + (q >> 2) * 4 * m;
        Store8(re + pos * B, r[q]);
        Store8(im + pos * B, i[q]);
      }
    }
  }
}
#pragma GCC diagnostic pop
#endif

// Elements (of B lanes) per cache block: the stages whose butterflies stay inside 32 KiB of
// re/im data run block by block (depth first), the others over the whole vector. This only
// reorders independent butterflies: every butterfly sees the same inputs, so the bits are the same.
constexpr size_t kCacheBlockDoubles = 2048;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // V8 values only live inside always-inline helpers
// Forward DFT of the B lanes of a block of length n whose elements are in bit-reversed order.
// Output in natural order. tw: the plan's radix-4 twiddle table.
template <size_t B>
DASHI_FFT_INLINE void RunStages(double* re, double* im, size_t n, const double* tw,
                                bool skip_first = false, int skip_last = 0) {
  // skip_first: the first stage (radix-2, or radix-4 of sub-length 1; see fuse8 below) was run by
  // the caller;
  // skip_last: the last skip_last (0, 1 or 2) radix-4 stages are left to the caller. Only where
  // the skipped stages and the first one are different stages.
  if (n == 1) return;
  const bool radix2 = Log2(n) % 2 == 1;
  const size_t end_m = n >> (2 * skip_last);  // the radix-4 stages of sub-length m < end_m run
  const size_t block = std::min(n, std::max<size_t>(kCacheBlockDoubles / B, 4));
  // With 8 lanes, the radix-2 stage and the next one (sub-length 2) run as one pass over groups
  // of 8 elements in registers (Radix2Radix4V); skip_first then means both were run.
  const bool fuse8 = DASHI_FFT_V8 && B == 8 && block >= 8 && UseV8();
  size_t m = 1;
  const double* t = tw;
  for (size_t b0 = 0; b0 < n; b0 += block) {
    m = 1;
    t = tw;
    if (radix2 && fuse8) {
#if DASHI_FFT_V8
      if (!skip_first) {
        for (size_t k = b0; k < b0 + block; k += 8) {
          V8 r[8], i[8];
#pragma GCC unroll 8
          for (size_t q = 0; q < 8; ++q) {
            r[q] = Load8(re + (k + q) * B);
            i[q] = Load8(im + (k + q) * B);
          }
          Radix2Radix4V(r, i, tw);
#pragma GCC unroll 8
          for (size_t q = 0; q < 8; ++q) {
            Store8(re + (k + q) * B, r[q]);
            Store8(im + (k + q) * B, i[q]);
          }
        }
      }
#endif
      m = 8;
      t = tw + 12;  // past the sub-length-2 stage's table
    } else if (radix2) {
      if (!skip_first) {
        for (size_t k = b0; k < b0 + block; k += 2) {
          Butterfly2<B>(re + k * B, im + k * B, re + (k + 1) * B, im + (k + 1) * B);
        }
      }
      m = 2;
    } else if (skip_first) {
      t += 6;  // the sub-length-1 stage's table
      m = 4;
    }
#if DASHI_FFT_V8
    if constexpr (B == 8) {  // pairs of stages in registers (Radix4PairV)
      for (; fuse8 && 16 * m <= block && 4 * m < end_m; m *= 16) {
        Radix4PairV(re, im, b0, b0 + block, m, t, t + 6 * m);
        t += 30 * m;
      }
    }
#endif
    for (; 4 * m <= block && m < end_m; m *= 4) {
      Radix4Stage<B>(re, im, b0, b0 + block, m, t);
      t += 6 * m;
    }
  }
#if DASHI_FFT_V8
  if constexpr (B == 8) {
    for (; fuse8 && 16 * m <= n && 4 * m < end_m; m *= 16) {
      Radix4PairV(re, im, 0, n, m, t, t + 6 * m);
      t += 30 * m;
    }
  }
#endif
  for (; m < end_m; m *= 4) {
    Radix4Stage<B>(re, im, 0, n, m, t);
    t += 6 * m;
  }
}

#pragma GCC diagnostic pop

// Forward (or, on swapped arrays, unscaled inverse) transform of a block.
template <size_t B>
DASHI_FFT_INLINE void RunBlock(double* re, double* im, size_t n, const double* tw, bool inverse) {
  if (inverse) {
    RunStages<B>(im, re, n, tw);
  } else {
    RunStages<B>(re, im, n, tw);
  }
}

#if DASHI_FFT_V8
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// The 8-lane paths of the row passes below, each for one full block. On x86-64 they are compiled
// for AVX-512F (DASHI_FFT_AVX512; they run only where UseV8), for LoadTransposed8's 256-bit
// loads.

// ComplexRowPass, one block of 8 rows (row stride cols) in place.
DASHI_FFT_AVX512 void ComplexRowBlockV8(double* block, size_t cols, const uint32_t* rev,
                                        const double* tw, bool inverse, double* re, double* im) {
  constexpr size_t B = kBlock;
  // Four complex values of the 8 rows per transpose: v[2j] = Re, v[2j+1] = Im of element
  // i0 + j, stored at its bit-reversed position.
  for (size_t i0 = 0; i0 < cols; i0 += 4) {
    V8 v[8];
    LoadTransposed8(block + 2 * i0, 2 * cols, v);
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; ++j) {
      Store8(re + rev[i0 + j] * B, v[2 * j]);
      Store8(im + rev[i0 + j] * B, v[2 * j + 1]);
    }
  }
  RunBlock<B>(re, im, cols, tw, inverse);
  for (size_t i0 = 0; i0 < cols; i0 += 4) {
    V8 v[8];
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; ++j) {
      v[2 * j] = Load8(re + (i0 + j) * B);
      v[2 * j + 1] = Load8(im + (i0 + j) * B);
    }
    StoreTransposed8(v, block + 2 * i0, 2 * cols);
  }
}

// RealRowPassForward, one full block of 16 rows (cols ≥ 8): bins k < cols/2 into o (HalfStrides
// `hs`, o at the block's first row); the caller does the bin k = cols/2 from re/im.
DASHI_FFT_AVX512 void RealRowForwardBlockV8(const double* block, size_t cols, const uint32_t* rev,
                                            const double* tw, double* o, HalfStrides hs,
                                            double* re, double* im) {
  constexpr size_t B = kBlock;
  for (size_t i0 = 0; i0 < cols; i0 += 8) {
    V8 v[8];
    LoadTransposed8(block + i0, 2 * cols, v);  // rows 2l: elements i0..i0+7
#pragma GCC unroll 8
    for (size_t j = 0; j < 8; ++j) Store8(re + rev[i0 + j] * B, v[j]);
    LoadTransposed8(block + cols + i0, 2 * cols, v);  // rows 2l + 1
#pragma GCC unroll 8
    for (size_t j = 0; j < 8; ++j) Store8(im + rev[i0 + j] * B, v[j]);
  }
  RunBlock<B>(re, im, cols, tw, /*inverse=*/false);
  const V8 h = Broadcast8(0.5);
  for (size_t k0 = 0; k0 < cols / 2; k0 += 4) {
    V8 x[8], y[8];  // x[2j], x[2j+1]: Re, Im of X[k0 + j] (one lane per row pair)
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; ++j) {
      const size_t k = k0 + j, nk = (cols - k) & (cols - 1);
      const V8 zr = Load8(re + k * B), zi = Load8(im + k * B);
      const V8 wr = Load8(re + nk * B), wi = Load8(im + nk * B);
      x[2 * j] = h * (zr + wr);
      x[2 * j + 1] = h * (zi - wi);
      y[2 * j] = h * (zi + wi);
      y[2 * j + 1] = h * (wr - zr);
    }
    // Bins k0..k0 + 3 are consecutive in either layout (k0 % 4 == 0).
    StoreTransposed8(x, o + 2 * hs.Bin(k0), 4 * hs.rows.row);                     // rows 2l
    StoreTransposed8(y, o + 2 * hs.rows.row + 2 * hs.Bin(k0), 4 * hs.rows.row);  // rows 2l + 1
  }
}

// RealRowPassInverse, one full block of 16 rows (cols ≥ 8; HalfStrides `hs`, block at its first
// row) into o (row stride cols).
DASHI_FFT_AVX512 void RealRowInverseBlockV8(const double* block, size_t cols, const uint32_t* rev,
                                            const double* tw, double scale, double* o,
                                            HalfStrides hs, double* re, double* im) {
  constexpr size_t B = kBlock;
  const size_t nyquist = cols / 2;
  // Bins kk = 0..cols/2 − 1 in groups of four by 8×8 transposes; each gives Z[kk] (at
  // position rev[kk]) and, for kk > 0, the mirrored Z[cols − kk] (at rev[cols − kk]): the
  // scalar loop's values and operations, element by element.
  const V8 zero = Broadcast8(0.0);
  for (size_t k0 = 0; k0 < nyquist; k0 += 4) {
    V8 x[8], y[8];  // x[2j], x[2j+1]: Re, Im of X[k0 + j] (one lane per row pair)
    LoadTransposed8(block + 2 * hs.Bin(k0), 4 * hs.rows.row, x);                     // rows 2l
    LoadTransposed8(block + 2 * hs.rows.row + 2 * hs.Bin(k0), 4 * hs.rows.row, y);  // rows 2l + 1
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; ++j) {
      const size_t k = k0 + j;
      const V8 xr = x[2 * j], yr = y[2 * j];
      const V8 xi = k == 0 ? zero : x[2 * j + 1], yi = k == 0 ? zero : y[2 * j + 1];
      Store8(re + rev[k] * B, xr - yi);
      Store8(im + rev[k] * B, xi + yr);
      if (k != 0) {
        Store8(re + rev[cols - k] * B, xr + yi);
        Store8(im + rev[cols - k] * B, yr - xi);
      }
    }
  }
  {  // the Nyquist bin: real, not mirrored
    const size_t i = rev[nyquist];
    for (size_t l = 0; l < B; ++l) {
      const double* x = block + 2 * (2 * l * hs.rows.row + hs.Bin(nyquist));
      const double xr = x[0], yr = x[2 * hs.rows.row], xi = 0.0, yi = 0.0;
      re[i * B + l] = xr - yi;
      im[i * B + l] = xi + yr;
    }
  }
  RunBlock<B>(re, im, cols, tw, /*inverse=*/true);
  const V8 s = Broadcast8(scale);
  for (size_t i0 = 0; i0 < cols; i0 += 8) {
    V8 v[8];
#pragma GCC unroll 8
    for (size_t j = 0; j < 8; ++j) v[j] = Load8(re + (i0 + j) * B) * s;
    StoreTransposed8(v, o + i0, 2 * cols);  // rows 2l
#pragma GCC unroll 8
    for (size_t j = 0; j < 8; ++j) v[j] = Load8(im + (i0 + j) * B) * s;
    StoreTransposed8(v, o + cols + i0, 2 * cols);  // rows 2l + 1
  }
}
#pragma GCC diagnostic pop
#endif  // DASHI_FFT_V8

// --- 2D passes on interleaved std::complex storage --------------------------------------------
// std::complex<double> is array-compatible with double[2] ([complex.numbers]), so complex data
// are read as pairs of doubles.

// Row pass, complex in place: every row of a rows×cols array (row stride cols).
DASHI_FFT_MULTIVERSION void ComplexRowPass(double* data, size_t rows, size_t cols,
                                           const uint32_t* rev, const double* tw, bool inverse,
                                           double* re, double* im) {
  constexpr size_t B = kBlock;
  size_t r0 = 0;
  for (; r0 + B <= rows; r0 += B) {
    const double* block = data + 2 * r0 * cols;
#if DASHI_FFT_V8
    if (cols >= 4 && UseV8()) {
      ComplexRowBlockV8(data + 2 * r0 * cols, cols, rev, tw, inverse, re, im);
      continue;
    }
#endif
    for (size_t i = 0; i < cols; ++i) {  // the rows are read in order, stored bit-reversed
      const double* src = block + 2 * i;
      double* __restrict pr = re + rev[i] * B;
      double* __restrict pi = im + rev[i] * B;
      for (size_t l = 0; l < B; l += 2) {  // two rows at a time: two loads, two unpacks
        const double* a = src + 2 * l * cols;
        const double* b = a + 2 * cols;
        const double a0 = a[0], a1 = a[1], b0 = b[0], b1 = b[1];
        pr[l] = a0;
        pr[l + 1] = b0;
        pi[l] = a1;
        pi[l + 1] = b1;
      }
    }
    RunBlock<B>(re, im, cols, tw, inverse);
    double* out = data + 2 * r0 * cols;
    for (size_t i = 0; i < cols; ++i) {
      const double* __restrict pr = re + i * B;
      const double* __restrict pi = im + i * B;
      for (size_t l = 0; l < B; l += 2) {
        double* a = out + 2 * (l * cols + i);
        double* b = a + 2 * cols;
        const double a0 = pr[l], b0 = pr[l + 1], a1 = pi[l], b1 = pi[l + 1];
        a[0] = a0;
        a[1] = a1;
        b[0] = b0;
        b[1] = b1;
      }
    }
  }
  if (r0 < rows) {  // a last, partial block (rows < B); its unused lanes hold zeros
    const size_t nb = rows - r0;
    for (size_t i = 0; i < cols; ++i) {
      const double* src = data + 2 * (r0 * cols + rev[i]);
      for (size_t l = 0; l < B; ++l) {
        re[i * B + l] = l < nb ? src[2 * l * cols] : 0.0;
        im[i * B + l] = l < nb ? src[2 * l * cols + 1] : 0.0;
      }
    }
    RunBlock<B>(re, im, cols, tw, inverse);
    for (size_t l = 0; l < nb; ++l) {
      double* dst = data + 2 * (r0 + l) * cols;
      for (size_t i = 0; i < cols; ++i) {
        dst[2 * i] = re[i * B + l];
        dst[2 * i + 1] = im[i * B + l];
      }
    }
  }
}

// B consecutive complex values at src → re[0..B), im[0..B) (B even; written in pairs so that the
// compiler turns each pair into two vector loads and two unpacks).
template <size_t B>
DASHI_FFT_INLINE void Deinterleave(const double* __restrict src, double* __restrict re,
                                   double* __restrict im) {
  for (size_t l = 0; l < B; l += 2) {
    const double a0 = src[2 * l], a1 = src[2 * l + 1], b0 = src[2 * l + 2], b1 = src[2 * l + 3];
    re[l] = a0;
    re[l + 1] = b0;
    im[l] = a1;
    im[l + 1] = b1;
  }
}

// re[0..B), im[0..B) → B consecutive complex values at dst, each part multiplied by `scale` when
// kScaled.
template <size_t B, bool kScaled>
DASHI_FFT_INLINE void Interleave(const double* __restrict re, const double* __restrict im,
                                 double* __restrict dst, double scale) {
  for (size_t l = 0; l < B; l += 2) {
    double a0 = re[l], b0 = re[l + 1], a1 = im[l], b1 = im[l + 1];
    if constexpr (kScaled) {
      a0 *= scale;
      b0 *= scale;
      a1 *= scale;
      b1 *= scale;
    }
    dst[2 * l] = a0;
    dst[2 * l + 1] = a1;
    dst[2 * l + 2] = b0;
    dst[2 * l + 3] = b1;
  }
}

#if DASHI_FFT_V8

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // V8 values only live inside always-inline helpers
// One full block of ComplexColumnPass (8 columns at col, n = rows ≥ 16) with its first stage
// fused into the gather and its last stage into the write-back: the butterflies of RunStages, in
// registers, with the same operations and inputs, so the same bits; two passes over the scratch
// block fewer.
DASHI_FFT_INLINE void FusedColumnBlock(double* col, size_t n, RowStep rs, const uint32_t* rev,
                                       const double* tw, bool inverse, bool scaled, double scale,
                                       double* re, double* im) {
  // Measured (AMD EPYC, AVX-512): fusing the last two stages pays for the complex transforms'
  // power-of-two row strides (n ≥ 128) and costs a few per cent at the row-major half spectra
  // (stride cols/2 + 1) and at n = 64. Tiled half spectra (row stride 8) take it too; the tiled
  // layout's figures in docs/PERF.md were measured so, the other choice was not. Either way the
  // same bits.
  const bool pair_allowed = n >= 128 && (rs.row & (rs.row - 1)) == 0;
  constexpr size_t B = kBlock;
  const bool radix2 = Log2(n) % 2 == 1;
  // Gather + first stage. Scratch position p holds source row rev[p].
  if (radix2) {  // the radix-2 stage and the sub-length-2 stage (RunStages' fuse8)
    for (size_t p = 0; p < n; p += 8) {
      V8 r[8], i[8];
#pragma GCC unroll 8
      for (size_t q = 0; q < 8; ++q) LoadComplex8(col + 2 * rs.At(rev[p + q]), inverse, r[q], i[q]);
      Radix2Radix4V(r, i, tw);
#pragma GCC unroll 8
      for (size_t q = 0; q < 8; ++q) {
        Store8(re + (p + q) * B, r[q]);
        Store8(im + (p + q) * B, i[q]);
      }
    }
  } else {
    for (size_t p = 0; p < n; p += 4) {
      V8 r0, i0, r1, i1, r2, i2, r3, i3;
      LoadComplex8(col + 2 * rs.At(rev[p]), inverse, r0, i0);
      LoadComplex8(col + 2 * rs.At(rev[p + 1]), inverse, r1, i1);
      LoadComplex8(col + 2 * rs.At(rev[p + 2]), inverse, r2, i2);
      LoadComplex8(col + 2 * rs.At(rev[p + 3]), inverse, r3, i3);
      Butterfly4V<false>(r0, i0, r1, i1, r2, i2, r3, i3, nullptr);
      Store8(re + p * B, r0);
      Store8(im + p * B, i0);
      Store8(re + (p + 1) * B, r1);
      Store8(im + (p + 1) * B, i1);
      Store8(re + (p + 2) * B, r2);
      Store8(im + (p + 2) * B, i2);
      Store8(re + (p + 3) * B, r3);
      Store8(im + (p + 3) * B, i3);
    }
  }
  // The last two stages (sub-lengths n/16 and n/4) as one register pass fused into the write-back
  // where both come after the gather's stages (sub-length 8 or 4 onwards), else the last one.
  const size_t first_m = radix2 ? 8 : 4;
  const bool last_pair = pair_allowed && n / 16 >= first_m;
  RunStages<B>(re, im, n, tw, /*skip_first=*/true, /*skip_last=*/last_pair ? 2 : 1);
  const size_t m = last_pair ? n / 16 : n / 4;
  // The tables of the skipped stages follow those of the earlier ones.
  const double* t = tw;
  for (size_t mm = radix2 ? 2 : 1; mm < m; mm *= 4) t += 6 * mm;
  if (last_pair) {
    for (size_t j = 0; j < m; ++j) {
      V8 r[16], i[16];
#pragma GCC unroll 16
      for (size_t q = 0; q < 16; ++q) {
        const size_t pos = j + (q & 3) * m + (q >> 2) * 4 * m;
        r[q] = Load8(re + pos * B);
        i[q] = Load8(im + pos * B);
      }
      Pair16V(r, i, j, m, t, t + 6 * m);
#pragma GCC unroll 16
      for (size_t q = 0; q < 16; ++q) {
        const size_t pos = j + (q & 3) * m + (q >> 2) * 4 * m;
        StoreComplex8(r[q], i[q], inverse, scaled, scale, col + 2 * rs.At(pos));
      }
    }
    return;
  }
  for (size_t j = 0; j < m; ++j) {
    V8 r0 = Load8(re + j * B), i0 = Load8(im + j * B);
    V8 r1 = Load8(re + (j + m) * B), i1 = Load8(im + (j + m) * B);
    V8 r2 = Load8(re + (j + 2 * m) * B), i2 = Load8(im + (j + 2 * m) * B);
    V8 r3 = Load8(re + (j + 3 * m) * B), i3 = Load8(im + (j + 3 * m) * B);
    if (j == 0) {
      Butterfly4V<false>(r0, i0, r1, i1, r2, i2, r3, i3, nullptr);
    } else {
      Butterfly4V<true>(r0, i0, r1, i1, r2, i2, r3, i3, t + 6 * j);
    }
    StoreComplex8(r0, i0, inverse, scaled, scale, col + 2 * rs.At(j));
    StoreComplex8(r1, i1, inverse, scaled, scale, col + 2 * rs.At(j + m));
    StoreComplex8(r2, i2, inverse, scaled, scale, col + 2 * rs.At(j + 2 * m));
    StoreComplex8(r3, i3, inverse, scaled, scale, col + 2 * rs.At(j + 3 * m));
  }
}
#pragma GCC diagnostic pop
#endif

// Column pass, complex in place: the first ncols columns of an array whose rows start at
// rs.At(r) and whose blocks of kBlock columns are `block_stride` apart (complex values; a plain
// rows×s array has rs = {s, kNoTiles, 0} and block_stride = kBlock), each scaled by `scale` when
// `scaled` (the last pass of an inverse transform).
DASHI_FFT_MULTIVERSION void ComplexColumnPass(double* data, size_t rows, RowStep rs,
                                              size_t block_stride, size_t ncols,
                                              const uint32_t* rev, const double* tw, bool inverse,
                                              bool scaled, double scale, double* re, double* im) {
  constexpr size_t B = kBlock;
  size_t c0 = 0;
  for (; c0 + B <= ncols; c0 += B) {
    double* blk = data + 2 * (c0 / B) * block_stride;
#if DASHI_FFT_V8
    if (rows >= 16 && UseV8()) {
      FusedColumnBlock(blk, rows, rs, rev, tw, inverse, scaled, scale, re, im);
      continue;
    }
#endif
    for (size_t i = 0; i < rows; ++i) {
      const size_t d = rev[i];  // rows are read in natural order, stored bit-reversed
      Deinterleave<B>(blk + 2 * rs.At(i), re + d * B, im + d * B);
    }
    RunBlock<B>(re, im, rows, tw, inverse);
    if (scaled) {
      for (size_t i = 0; i < rows; ++i) {
        Interleave<B, true>(re + i * B, im + i * B, blk + 2 * rs.At(i), scale);
      }
    } else {
      for (size_t i = 0; i < rows; ++i) {
        Interleave<B, false>(re + i * B, im + i * B, blk + 2 * rs.At(i), scale);
      }
    }
  }
#if DASHI_FFT_V8
  if (c0 < ncols && rows >= 16 && UseV8()) {
    // A last, partial block (the real transforms' Nyquist column): copied into a padded block of
    // 8 columns (unused lanes zero) and run as a full one; only its nb columns are copied back.
    // The block lives in this thread's buffer (no allocation per call: the LES runs this for
    // every array of every real transform); every element is written before it is read.
    const size_t nb = ncols - c0;
    const size_t off = (c0 / B) * block_stride;
    thread_local AlignedVector<double> pad_buf;
    if (pad_buf.size() < 2 * B * rows) pad_buf.resize(2 * B * rows);
    double* pad = pad_buf.data();
    for (size_t i = 0; i < rows; ++i) {
      for (size_t l = 0; l < 2 * B; ++l) {
        pad[2 * B * i + l] = l < 2 * nb ? data[2 * (rs.At(i) + off) + l] : 0.0;
      }
    }
    FusedColumnBlock(pad, rows, RowStep{B, kNoTiles, 0}, rev, tw, inverse, scaled, scale, re, im);
    for (size_t i = 0; i < rows; ++i) {
      for (size_t l = 0; l < 2 * nb; ++l) data[2 * (rs.At(i) + off) + l] = pad[2 * B * i + l];
    }
    return;
  }
#endif
  if (c0 < ncols) {  // a last, partial block; its unused lanes hold zeros
    const size_t nb = ncols - c0;
    const size_t off = (c0 / B) * block_stride;
    for (size_t i = 0; i < rows; ++i) {
      const double* src = data + 2 * (rs.At(rev[i]) + off);
      for (size_t l = 0; l < B; ++l) {
        re[i * B + l] = l < nb ? src[2 * l] : 0.0;
        im[i * B + l] = l < nb ? src[2 * l + 1] : 0.0;
      }
    }
    RunBlock<B>(re, im, rows, tw, inverse);
    for (size_t i = 0; i < rows; ++i) {
      double* dst = data + 2 * (rs.At(i) + off);
      for (size_t l = 0; l < nb; ++l) {
        dst[2 * l] = scaled ? re[i * B + l] * scale : re[i * B + l];
        dst[2 * l + 1] = scaled ? im[i * B + l] * scale : im[i * B + l];
      }
    }
  }
}

// Forward real row pass: rows×cols reals → rows×(cols/2+1) half spectra (strides `hs`; out at
// the first row). Rows 2p and 2p+1 (a row of zeros past the last row) are packed as z = x + i·y, one
// complex FFT Z of length cols gives both half spectra,
//   X[k] = 0.5·(Z[k] + conj(Z[c−k])),  Y[k] = −0.5·i·(Z[k] − conj(Z[c−k])),
// i.e. X = (0.5·(Zr[k] + Zr[c−k]), 0.5·(Zi[k] − Zi[c−k])), Y = (0.5·(Zi[k] + Zi[c−k]),
// 0.5·(Zr[c−k] − Zr[k])), indices mod c = cols, k = 0..cols/2.
DASHI_FFT_MULTIVERSION void RealRowPassForward(const double* real, size_t rows, size_t cols,
                                               const uint32_t* rev, const double* tw, double* out,
                                               HalfStrides hs, double* re, double* im) {
  constexpr size_t B = kBlock;
  const size_t half = cols / 2 + 1;
  for (size_t p0 = 0; p0 < rows; p0 += 2 * B) {
    const size_t nrows = std::min(2 * B, rows - p0);  // rows in this block: 1 or even
    const double* block = real + p0 * cols;
    // With 8×8 transposes (full blocks, cols ≥ 8): bins k < cols/2 in groups of four, the last
    // bin k = cols/2 by the scalar loop below.
    const bool vector = DASHI_FFT_V8 && nrows == 2 * B && cols >= 8 && UseV8();
    size_t k_begin = 0;
#if DASHI_FFT_V8
    if (vector) {
      RealRowForwardBlockV8(block, cols, rev, tw, out + 2 * hs.rows.At(p0), hs, re, im);
      k_begin = cols / 2;
    }
#endif
    if (vector) {
      // gathered and transformed above
    } else if (nrows == 2 * B) {
      for (size_t i = 0; i < cols; ++i) {  // the rows are read in order, stored bit-reversed
        const double* src = block + i;
        double* __restrict pr = re + rev[i] * B;
        double* __restrict pi = im + rev[i] * B;
        for (size_t l = 0; l < B; ++l) {
          pr[l] = src[2 * l * cols];
          pi[l] = src[(2 * l + 1) * cols];
        }
      }
    } else {
      for (size_t i = 0; i < cols; ++i) {
        const double* src = block + i;
        double* __restrict pr = re + rev[i] * B;
        double* __restrict pi = im + rev[i] * B;
        for (size_t l = 0; l < B; ++l) {
          pr[l] = 2 * l < nrows ? src[2 * l * cols] : 0.0;
          pi[l] = 2 * l + 1 < nrows ? src[(2 * l + 1) * cols] : 0.0;
        }
      }
    }
    if (!vector) RunBlock<B>(re, im, cols, tw, /*inverse=*/false);
    double* o = out + 2 * hs.rows.At(p0);
    for (size_t k = k_begin; k < half; ++k) {
      const size_t nk = (cols - k) & (cols - 1);
      double xr[B], xi[B], yr[B], yi[B];
      for (size_t l = 0; l < B; ++l) {
        const double zr = re[k * B + l], zi = im[k * B + l];
        const double wr = re[nk * B + l], wi = im[nk * B + l];
        xr[l] = 0.5 * (zr + wr);
        xi[l] = 0.5 * (zi - wi);
        yr[l] = 0.5 * (zi + wi);
        yi[l] = 0.5 * (wr - zr);
      }
      if (nrows == 2 * B) {
        for (size_t l = 0; l < B; ++l) {
          double* x = o + 2 * (2 * l * hs.rows.row + hs.Bin(k));
          double* y = x + 2 * hs.rows.row;
          x[0] = xr[l];
          x[1] = xi[l];
          y[0] = yr[l];
          y[1] = yi[l];
        }
      } else {
        for (size_t l = 0; 2 * l < nrows; ++l) {
          double* x = o + 2 * (2 * l * hs.rows.row + hs.Bin(k));
          x[0] = xr[l];
          x[1] = xi[l];
          if (2 * l + 1 < nrows) {
            x[2 * hs.rows.row] = yr[l];
            x[2 * hs.rows.row + 1] = yi[l];
          }
        }
      }
    }
  }
}

// Inverse real row pass: rows×(cols/2+1) spectra (already inverse-transformed along the
// columns; strides `hs`, spec at the first row) → rows×cols reals times `scale`. Per pair of rows, the
// Hermitian extension X[k] = conj(X[c−k]) for k > cols/2, with the imaginary parts of X[0] and
// X[cols/2] taken as 0, packed as Z = X + i·Y, one inverse complex FFT, x = Re z, y = Im z.
DASHI_FFT_MULTIVERSION void RealRowPassInverse(const double* spec, size_t rows, size_t cols,
                                               const uint32_t* rev, const double* tw, double scale,
                                               double* out, HalfStrides hs, double* re,
                                               double* im) {
  constexpr size_t B = kBlock;
  const size_t nyquist = cols / 2;
  for (size_t p0 = 0; p0 < rows; p0 += 2 * B) {
    const size_t nrows = std::min(2 * B, rows - p0);
    const double* block = spec + 2 * hs.rows.At(p0);
#if DASHI_FFT_V8
    if (nrows == 2 * B && cols >= 8 && UseV8()) {
      RealRowInverseBlockV8(block, cols, rev, tw, scale, out + p0 * cols, hs, re, im);
      continue;
    }
#endif
    for (size_t i = 0; i < cols; ++i) {
      const size_t k = rev[i];
      const bool mirrored = k > nyquist;
      const size_t kk = mirrored ? cols - k : k;
      const bool real_bin = kk == 0 || kk == nyquist;
      double xr[B], xi[B], yr[B], yi[B];
      if (nrows == 2 * B) {
        for (size_t l = 0; l < B; ++l) {
          const double* x = block + 2 * (2 * l * hs.rows.row + hs.Bin(kk));
          xr[l] = x[0];
          xi[l] = x[1];
          yr[l] = x[2 * hs.rows.row];
          yi[l] = x[2 * hs.rows.row + 1];
        }
      } else {
        for (size_t l = 0; l < B; ++l) {
          const double* x = block + 2 * (2 * l * hs.rows.row + hs.Bin(kk));
          xr[l] = 2 * l < nrows ? x[0] : 0.0;
          xi[l] = 2 * l < nrows ? x[1] : 0.0;
          yr[l] = 2 * l + 1 < nrows ? x[2 * hs.rows.row] : 0.0;
          yi[l] = 2 * l + 1 < nrows ? x[2 * hs.rows.row + 1] : 0.0;
        }
      }
      if (real_bin) {
        for (size_t l = 0; l < B; ++l) xi[l] = yi[l] = 0.0;
      }
      // Z = X + i·Y; for a mirrored bin X = conj(Xh), Y = conj(Yh).
      if (mirrored) {
        for (size_t l = 0; l < B; ++l) {
          re[i * B + l] = xr[l] + yi[l];
          im[i * B + l] = yr[l] - xi[l];
        }
      } else {
        for (size_t l = 0; l < B; ++l) {
          re[i * B + l] = xr[l] - yi[l];
          im[i * B + l] = xi[l] + yr[l];
        }
      }
    }
    RunBlock<B>(re, im, cols, tw, /*inverse=*/true);
    double* o = out + p0 * cols;
    for (size_t l = 0; l < B; ++l) {
      if (2 * l < nrows) {
        double* x = o + 2 * l * cols;
        for (size_t i = 0; i < cols; ++i) x[i] = re[i * B + l] * scale;
      }
      if (2 * l + 1 < nrows) {
        double* y = o + (2 * l + 1) * cols;
        for (size_t i = 0; i < cols; ++i) y[i] = im[i * B + l] * scale;
      }
    }
  }
}

}  // namespace

bool IsPowerOfTwo(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// --- Fft1d ------------------------------------------------------------------------------------

StatusOr<Fft1d> Fft1d::Create(size_t n) {
  if (!IsPowerOfTwo(n) || n > kMaxLength) {
    return InvalidArgumentError("FFT length " + std::to_string(n) +
                                " is not a power of two in [1, 2^20]");
  }
  return Fft1d(n);
}

Fft1d::Fft1d(size_t n) : n_(n) {
  const int bits = Log2(n);
  bit_reverse_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t r = 0;
    for (int b = 0; b < bits; ++b) r |= static_cast<uint32_t>((i >> b) & 1) << (bits - 1 - b);
    bit_reverse_[i] = r;
  }
  // Radix-4 stages of sub-length m (m = 1 or 2 first, then ×4 until 4m = n): six doubles per j.
  const TwiddleTable table(n);
  size_t m = (bits % 2 == 1) ? 2 : 1;
  for (; m < n; m *= 4) {
    const size_t step = n / (4 * m);  // W_{4m}^{rj} = W_n^{rj·step}
    for (size_t j = 0; j < m; ++j) {
      for (size_t r = 1; r <= 3; ++r) {
        double wr, wi;
        table.Get(r * j * step, &wr, &wi);
        twiddles_.push_back(wr);
        twiddles_.push_back(wi);
      }
    }
  }
}

void Fft1d::Transform(std::span<Complex> data, bool inverse) const {
  if (data.size() != n_) return;
  const size_t n = n_;
  std::vector<double> buf(2 * n);
  double* re = buf.data();
  double* im = buf.data() + n;
  const double* src = reinterpret_cast<const double*>(data.data());
  const uint32_t* rev = bit_reverse_.data();
  // re/im[rev[s]] = data[s]. For n ≥ 2^18 (beyond the L2 cache) the source indices
  // s = (a, mid, c) (top q bits, middle bits, bottom q bits) are visited tile by tile (mid outer,
  // then a, then c): 2^q runs of 2^q consecutive elements are read and, since
  // rev(s) = (rev c, rev mid, rev a), 2^q runs of 2^q consecutive elements are written, so both
  // sides stay in cache. Only the order of the copies changes, not a value.
  constexpr int kTileBits = 5;
  const int bits = Log2(n);
  if (bits >= 18) {
    const size_t tile = size_t{1} << kTileBits;
    const size_t mids = n >> (2 * kTileBits);
    for (size_t mid = 0; mid < mids; ++mid) {
      for (size_t a = 0; a < tile; ++a) {
        const size_t base = (a << (bits - kTileBits)) | (mid << kTileBits);
        for (size_t c = 0; c < tile; ++c) {
          const size_t s = base | c;
          re[rev[s]] = src[2 * s];
          im[rev[s]] = src[2 * s + 1];
        }
      }
    }
  } else {
    for (size_t s = 0; s < n; ++s) {
      re[rev[s]] = src[2 * s];
      im[rev[s]] = src[2 * s + 1];
    }
  }
  RunBlock<1>(re, im, n, twiddles_.data(), inverse);
  double* dst = reinterpret_cast<double*>(data.data());
  if (inverse) {
    const double scale = 1.0 / static_cast<double>(n);  // exact: n is a power of two
    for (size_t i = 0; i < n; ++i) {
      dst[2 * i] = re[i] * scale;
      dst[2 * i + 1] = im[i] * scale;
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      dst[2 * i] = re[i];
      dst[2 * i + 1] = im[i];
    }
  }
}

void Fft1d::Forward(std::span<Complex> data) const { Transform(data, /*inverse=*/false); }
void Fft1d::Inverse(std::span<Complex> data) const { Transform(data, /*inverse=*/true); }

// --- Fft2d ------------------------------------------------------------------------------------

StatusOr<Fft2d> Fft2d::Create(size_t rows, size_t cols) {
  StatusOr<Fft1d> col_fft = Fft1d::Create(rows);
  if (!col_fft.ok()) return col_fft.status().WithPrefix("2D FFT rows");
  StatusOr<Fft1d> row_fft = Fft1d::Create(cols);
  if (!row_fft.ok()) return row_fft.status().WithPrefix("2D FFT cols");
  if (rows * cols > kMaxElements2d) {
    return InvalidArgumentError("2D FFT shape " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " has more than 2^30 elements");
  }
  return Fft2d(rows, cols, std::move(*row_fft), std::move(*col_fft));
}

namespace {

// This thread's split scratch for the 2D passes, at least `doubles` long: allocated once per
// thread and reused (its contents never matter: every pass writes a block before reading it).
// Cache-line aligned: every 8-lane load and store of a block row is then one line, never two
// (with std::vector's 16-byte alignment the 2D passes ran 10–70 % slower, and which of the two a
// process got depended on the heap's state: docs/PERF.md).
double* PassScratch(size_t doubles) {
  thread_local AlignedVector<double> buf;
  if (buf.size() < doubles) buf.resize(doubles);
  return buf.data();
}

// One pass over `count` arrays of one shape as a single parallel section: each array has
// `items` rows (or columns) cut into units of `grain` (the last one may be shorter), and the
// count·⌈items/grain⌉ units are split over `pool` (ParallelForBalanced: each thread starts on its
// contiguous chunk and takes unclaimed units of slower threads when done). pass(a, begin, end, re,
// im) transforms items [begin, end) of array a with the calling thread's scratch (`len` elements
// × kBlock lanes, split). A pass only reads and writes its own rows (columns) and every lane of a
// block performs the same operations whatever its neighbours (see the top of this file), so
// neither the split nor the batching can change a bit.
template <typename Pass>
void RunPass(const ThreadPool* pool, size_t count, size_t items, size_t grain, size_t len,
             Pass&& pass) {
  const size_t per = (items + grain - 1) / grain;
  ParallelForBalanced(pool, count * per, 1, [&](size_t ub, size_t ue, int) {
    double* re = PassScratch(2 * kBlock * len);
    double* im = re + kBlock * len;
    for (size_t u = ub; u < ue;) {
      const size_t a = u / per;
      const size_t stop = std::min(ue, (a + 1) * per);
      pass(a, (u - a * per) * grain, std::min(items, (stop - a * per) * grain), re, im);
      u = stop;
    }
  });
}

}  // namespace

void Fft2d::Forward(std::span<Complex> data) const {
  if (data.size() != rows_ * cols_) return;
  double* d = reinterpret_cast<double*>(data.data());
  RunPass(pool_, 1, rows_, kBlock, cols_, [&](size_t, size_t b, size_t e, double* re, double* im) {
    ComplexRowPass(d + 2 * b * cols_, e - b, cols_, row_fft_.bit_reverse_.data(),
                   row_fft_.twiddles_.data(), /*inverse=*/false, re, im);
  });
  RunPass(pool_, 1, cols_, kBlock, rows_, [&](size_t, size_t b, size_t e, double* re, double* im) {
    ComplexColumnPass(d + 2 * b, rows_, RowStep{cols_, kNoTiles, 0}, kBlock, e - b,
                      col_fft_.bit_reverse_.data(),
                      col_fft_.twiddles_.data(), /*inverse=*/false, /*scaled=*/false, 1.0, re, im);
  });
}

void Fft2d::Inverse(std::span<Complex> data) const {
  if (data.size() != rows_ * cols_) return;
  double* d = reinterpret_cast<double*>(data.data());
  const double scale = 1.0 / static_cast<double>(rows_ * cols_);  // exact power of two
  RunPass(pool_, 1, rows_, kBlock, cols_, [&](size_t, size_t b, size_t e, double* re, double* im) {
    ComplexRowPass(d + 2 * b * cols_, e - b, cols_, row_fft_.bit_reverse_.data(),
                   row_fft_.twiddles_.data(), /*inverse=*/true, re, im);
  });
  RunPass(pool_, 1, cols_, kBlock, rows_, [&](size_t, size_t b, size_t e, double* re, double* im) {
    ComplexColumnPass(d + 2 * b, rows_, RowStep{cols_, kNoTiles, 0}, kBlock, e - b,
                      col_fft_.bit_reverse_.data(),
                      col_fft_.twiddles_.data(), /*inverse=*/true, /*scaled=*/true, scale, re, im);
  });
}

size_t Fft2d::HalfRowBins(size_t cols, HalfLayout layout) {
  const size_t half = cols / 2 + 1;
  return layout == HalfLayout::kRowMajor ? half : (half + kBlock - 1) / kBlock * kBlock;
}

size_t Fft2d::HalfSize(HalfLayout layout) const { return rows_ * HalfRowBins(cols_, layout); }

size_t Fft2d::HalfIndex(size_t r, size_t k, HalfLayout layout) const {
  const HalfStrides hs = StridesOf(layout, rows_, half_cols());
  return hs.rows.At(r) + hs.Bin(k);
}

bool Fft2d::ConvertHalf(std::span<const Complex> from, HalfLayout from_layout,
                        std::span<Complex> to, HalfLayout to_layout) const {
  if (from.size() != HalfSize(from_layout) || to.size() != HalfSize(to_layout)) return false;
  if (from.data() == to.data()) return false;
  std::fill(to.begin(), to.end(), Complex(0, 0));
  const HalfStrides f = StridesOf(from_layout, rows_, half_cols());
  const HalfStrides t = StridesOf(to_layout, rows_, half_cols());
  for (size_t r = 0; r < rows_; ++r) {
    const size_t fr = f.rows.At(r), tr = t.rows.At(r);
    for (size_t k = 0; k < half_cols(); ++k) to[tr + t.Bin(k)] = from[fr + f.Bin(k)];
  }
  return true;
}

namespace {

// The column pass of `count` half spectra of `rows` rows in one section (RunPass); data(a) is
// array a's first double. Tiled arrays are transformed in whole blocks, padding lanes
// included (no partial block, nothing copied).
template <typename DataOf>
void HalfColumnsPass(const ThreadPool* pool, size_t count, const DataOf& data, size_t rows,
                     size_t half, HalfLayout layout, const uint32_t* rev, const double* tw,
                     bool inverse) {
  const HalfStrides hs = StridesOf(layout, rows, half);
  const size_t items =
      layout == HalfLayout::kRowMajor ? half : (half + kBlock - 1) / kBlock * kBlock;
  RunPass(pool, count, items, kBlock, rows,
          [&](size_t a, size_t b, size_t e, double* re, double* im) {
            ComplexColumnPass(data(a) + 2 * hs.Bin(b), rows, hs.rows, hs.block, e - b, rev, tw,
                              inverse, /*scaled=*/false, 1.0, re, im);
          });
}

}  // namespace

bool Fft2d::RfftMany(std::span<const std::span<const double>> in,
                     std::span<const std::span<Complex>> out, HalfLayout layout) const {
  if (in.size() != out.size()) return false;
  for (size_t a = 0; a < in.size(); ++a) {
    if (in[a].size() != rows_ * cols_ || out[a].size() != HalfSize(layout)) return false;
  }
  const HalfStrides hs = StridesOf(layout, rows_, half_cols());
  auto out_of = [&](size_t a) { return reinterpret_cast<double*>(out[a].data()); };
  // Rows are packed in pairs (2p, 2p + 1): units of 2·kBlock rows keep every pair and block the
  // one-thread pass's.
  RunPass(pool_, in.size(), rows_, 2 * kBlock, cols_,
          [&](size_t a, size_t b, size_t e, double* re, double* im) {
            RealRowPassForward(in[a].data() + b * cols_, e - b, cols_,
                               row_fft_.bit_reverse_.data(), row_fft_.twiddles_.data(),
                               out_of(a) + 2 * hs.rows.At(b), hs, re, im);
          });
  HalfColumnsPass(pool_, in.size(), out_of, rows_, half_cols(), layout,
                  col_fft_.bit_reverse_.data(), col_fft_.twiddles_.data(), /*inverse=*/false);
  return true;
}

bool Fft2d::IrfftManyDestroying(std::span<const std::span<Complex>> in,
                                std::span<const std::span<double>> out, HalfLayout layout) const {
  if (in.size() != out.size()) return false;
  for (size_t a = 0; a < in.size(); ++a) {
    if (in[a].size() != HalfSize(layout) || out[a].size() != rows_ * cols_) return false;
  }
  const HalfStrides hs = StridesOf(layout, rows_, half_cols());
  auto in_of = [&](size_t a) { return reinterpret_cast<double*>(in[a].data()); };
  HalfColumnsPass(pool_, in.size(), in_of, rows_, half_cols(), layout,
                  col_fft_.bit_reverse_.data(), col_fft_.twiddles_.data(), /*inverse=*/true);
  const double scale = 1.0 / static_cast<double>(rows_ * cols_);  // exact power of two
  RunPass(pool_, in.size(), rows_, 2 * kBlock, cols_,
          [&](size_t a, size_t b, size_t e, double* re, double* im) {
            RealRowPassInverse(in_of(a) + 2 * hs.rows.At(b), e - b, cols_,
                               row_fft_.bit_reverse_.data(), row_fft_.twiddles_.data(), scale,
                               out[a].data() + b * cols_, hs, re, im);
          });
  return true;
}

bool Fft2d::InverseRowsMapForwardRows(
    std::span<const std::span<const Complex>> spec, std::span<const std::span<Complex>> out,
    const std::function<void(size_t begin, size_t end, const double* const* real,
                             double* const* products)>& body,
    HalfLayout layout) const {
  constexpr size_t kMaxArrays = 16;
  if (spec.size() > kMaxArrays || out.size() > kMaxArrays) return false;
  for (const auto& a : spec) {
    if (a.size() != HalfSize(layout)) return false;
  }
  for (const auto& a : out) {
    if (a.size() != HalfSize(layout)) return false;
  }
  const HalfStrides hs = StridesOf(layout, rows_, half_cols());
  const size_t block = 2 * kBlock;  // rows per unit: whole packed pairs and blocks
  const size_t rows_per_array = block * cols_;
  const double scale = 1.0 / static_cast<double>(rows_ * cols_);  // exact power of two
  ParallelForBalanced(pool_, rows_, block, [&](size_t begin, size_t end, int) {
    double* re = PassScratch(2 * kBlock * cols_ + (spec.size() + out.size()) * rows_per_array);
    double* im = re + kBlock * cols_;
    double* rows = re + 2 * kBlock * cols_;
    const double* real[kMaxArrays];
    double* products[kMaxArrays];
    for (size_t a = 0; a < spec.size(); ++a) real[a] = rows + a * rows_per_array;
    for (size_t p = 0; p < out.size(); ++p) {
      products[p] = rows + (spec.size() + p) * rows_per_array;
    }
    for (size_t b = begin; b < end; b += block) {
      const size_t e = std::min(end, b + block);
      for (size_t a = 0; a < spec.size(); ++a) {
        RealRowPassInverse(reinterpret_cast<const double*>(spec[a].data()) + 2 * hs.rows.At(b),
                           e - b, cols_, row_fft_.bit_reverse_.data(), row_fft_.twiddles_.data(),
                           scale, rows + a * rows_per_array, hs, re, im);
      }
      body(b, e, real, products);
      for (size_t p = 0; p < out.size(); ++p) {
        RealRowPassForward(products[p], e - b, cols_, row_fft_.bit_reverse_.data(),
                           row_fft_.twiddles_.data(),
                           reinterpret_cast<double*>(out[p].data()) + 2 * hs.rows.At(b), hs, re,
                           im);
      }
    }
  });
  return true;
}

bool Fft2d::ColumnsMany(std::span<const std::span<Complex>> data, bool inverse,
                        HalfLayout layout) const {
  for (const auto& a : data) {
    if (a.size() != HalfSize(layout)) return false;
  }
  HalfColumnsPass(
      pool_, data.size(), [&](size_t a) { return reinterpret_cast<double*>(data[a].data()); },
      rows_, half_cols(), layout, col_fft_.bit_reverse_.data(), col_fft_.twiddles_.data(),
      inverse);
  return true;
}

std::vector<Complex> Fft2d::Rfft(std::span<const double> real) const {
  if (real.size() != rows_ * cols_) return {};
  std::vector<Complex> out(rows_ * half_cols());
  const std::span<const double> in[1] = {real};
  const std::span<Complex> outs[1] = {out};
  RfftMany(in, outs);
  return out;
}

std::vector<double> Fft2d::Irfft(std::span<const Complex> half_spectrum) const {
  if (half_spectrum.size() != rows_ * half_cols()) return {};
  AlignedVector<Complex> work(half_spectrum.begin(), half_spectrum.end());
  std::vector<double> out(rows_ * cols_);
  const std::span<Complex> in[1] = {work};
  const std::span<double> outs[1] = {out};
  IrfftManyDestroying(in, outs);
  return out;
}

bool FftVectorPathsCompiled() { return DASHI_FFT_V8 != 0; }
bool FftUsesVectorPaths() { return UseV8(); }

}  // namespace dashi
