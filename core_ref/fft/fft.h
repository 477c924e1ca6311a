// Deterministic fp64 FFTs for power-of-two sizes 1..4096 (and beyond, up to 2^20): complex 1D and
// 2D, and real-to-complex / complex-to-real 2D. Same bytes on every run: twiddles are computed
// once per plan in a fixed way and every butterfly runs in a fixed order (docs/MATH.md §FFT).
//
// Conventions (NumPy's): forward X[k] = Σ_n x[n] e^{-2πi kn/N} (unscaled); inverse
// x[n] = (1/N) Σ_k X[k] e^{+2πi kn/N}. 2D data are row-major rows×cols; the 2D transform is
// the 1D transform along every row, then along every column.
// Real transforms: Rfft2d maps rows×cols reals to rows×(cols/2+1) complex (the half spectrum
// over the last axis, like numpy.fft.rfft2); Irfft2d inverts it (like numpy.fft.irfft2 with
// s=(rows, cols)), ignoring the imaginary parts that Hermitian symmetry makes redundant.
//
//   StatusOr<Fft2d> fft = Fft2d::Create(128, 128);
//   std::vector<std::complex<double>> spec = fft->Rfft(field);   // 128 × 65
//   std::vector<double> back = fft->Irfft(spec);                 // 128 × 128
#ifndef DASHI_CORE_REF_FFT_FFT_H_
#define DASHI_CORE_REF_FFT_FFT_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

class ThreadPool;  // core_ref/parallel/thread_pool.h

using Complex = std::complex<double>;

// |c|² as re·re + im·im: each product rounded, then the sum, in this order. Written out because
// std::norm may compute it through |c| (hypot) in some library configurations.
inline double SquaredMagnitude(const Complex& c) {
  return c.real() * c.real() + c.imag() * c.imag();
}

// True for 1, 2, 4, 8, ...
bool IsPowerOfTwo(size_t n);

// A 1D complex FFT of one power-of-two length.
class Fft1d {
 public:
  // INVALID_ARGUMENT unless n is a power of two in [1, 2^20].
  static StatusOr<Fft1d> Create(size_t n);

  size_t size() const { return n_; }
  // In place; data.size() must equal size() (a span of another size is left untouched).
  void Forward(std::span<Complex> data) const;
  void Inverse(std::span<Complex> data) const;  // includes the 1/N scale

 private:
  friend class Fft2d;  // shares the plan (twiddles, permutation) with the 2D passes

  explicit Fft1d(size_t n);
  void Transform(std::span<Complex> data, bool inverse) const;

  size_t n_;
  // Radix-4 stage twiddles (docs/MATH.md §FFT): for each radix-4 stage of sub-length m, in stage
  // order, for j = 0..m-1 the six doubles Re, Im of W^j, W^{2j}, W^{3j} with W = e^{-2πi/(4m)}.
  std::vector<double> twiddles_;
  std::vector<uint32_t> bit_reverse_;  // bit_reverse_[i] = i with its log2(n) bits reversed
};

// How the caller-storage transforms below lay out a rows×(cols/2+1) half spectrum in memory.
//  - kRowMajor (Rfft's layout): bin k of row r at r·(cols/2+1) + k.
//  - kTiled: tiles of R = min(16, rows) rows × 8 bins (R·128 bytes, each row of a tile one
//    128-byte run), the ⌈(cols/2+1)/8⌉ tiles of rows 0..R−1 first, left to right, then those of
//    the next R rows: bin k of row r at (r/R)·⌈(cols/2+1)/8⌉·8·R + (k/8)·8·R + 8·(r%R) + k%8.
//    A row pass (16 rows at a time) reads one contiguous run, as in row-major, and a column pass
//    (8 columns at a time) reads runs of R·128 bytes instead of one 128-byte piece per row (a
//    column of row-major rows walks one line per (cols/2+1)·16 bytes, one page per row at
//    cols ≥ 512, and its rows mostly start inside a line). The bins past cols/2 of the last tile
//    column are padding: the passes' scratch, which they may overwrite and which never reaches a
//    real bin (each of a block's 8 lanes is transformed on its own); keep it finite (zeros) for
//    speed.
// The layout only moves values: every transform gives the same bits in either.
enum class HalfLayout { kRowMajor, kTiled };

// 2D transforms of one rows×cols shape (both powers of two).
class Fft2d {
 public:
  // INVALID_ARGUMENT unless rows and cols are powers of two in [1, 2^20] and rows·cols ≤ 2^30.
  static StatusOr<Fft2d> Create(size_t rows, size_t cols);

  size_t rows() const { return rows_; }
  size_t cols() const { return cols_; }
  size_t half_cols() const { return cols_ / 2 + 1; }
  // Complex values an array of this shape's half spectrum holds in `layout`, and where bin k of
  // row r is.
  size_t HalfSize(HalfLayout layout) const;
  // Bins per row that HalfSize counts, for `cols` columns without a plan: cols/2 + 1 row-major,
  // rounded up to whole tile columns when tiled (HalfSize = rows · this).
  static size_t HalfRowBins(size_t cols, HalfLayout layout);
  size_t HalfIndex(size_t r, size_t k, HalfLayout layout) const;
  // Copies a half spectrum from one layout to another (padding written as zeros); false, with
  // nothing written, when a size does not match HalfSize or both are the same array.
  bool ConvertHalf(std::span<const Complex> from, HalfLayout from_layout, std::span<Complex> to,
                   HalfLayout to_layout) const;

  // In place on rows×cols complex values (a span of another size is left untouched).
  void Forward(std::span<Complex> data) const;
  void Inverse(std::span<Complex> data) const;  // includes the 1/(rows·cols) scale

  // rows×cols reals → rows×(cols/2+1) complex (an empty vector if real.size() != rows·cols).
  std::vector<Complex> Rfft(std::span<const double> real) const;
  // rows×(cols/2+1) complex → rows×cols reals (scaled by 1/(rows·cols); an empty vector if
  // half.size() != rows·(cols/2+1)).
  std::vector<double> Irfft(std::span<const Complex> half) const;

  // Several real transforms of this shape at once, for callers with many (an LES step has nine):
  // each pass is one parallel section over all the arrays (fewer, better balanced sections than
  // one transform at a time), and the outputs go to caller-owned storage (no allocation). Every
  // array gets exactly the operations of Rfft / Irfft: the same bits. False, with nothing
  // written, when the counts or a size do not match.
  // The half spectra are in `layout` (HalfSize(layout) values each).
  bool RfftMany(std::span<const std::span<const double>> in,
                std::span<const std::span<Complex>> out,
                HalfLayout layout = HalfLayout::kRowMajor) const;
  // Irfft of in[a] into out[a]; in[a] is overwritten (it is the column pass's work array).
  bool IrfftManyDestroying(std::span<const std::span<Complex>> in,
                           std::span<const std::span<double>> out,
                           HalfLayout layout = HalfLayout::kRowMajor) const;

  // The halves of those transforms, for a caller that works row by row between an inverse and a
  // forward transform (the LES's products): ColumnsMany is the column pass of every array, in
  // place (inverse: IrfftManyDestroying's first pass; forward: RfftMany's second), and
  // InverseRowsMapForwardRows is one parallel section over blocks of 16 rows that, per block,
  // runs the inverse real row pass of every spec[a] (already through the inverse column pass)
  // into real rows, calls body(begin, end, real, products) — real[a] and products[p] point at
  // rows begin..end−1 of each array, row r at [(r − begin)·cols] — and runs the forward real row
  // pass of every products[p] into out[p] (to be finished by ColumnsMany(out, false)). The real
  // rows live in the thread's scratch, never in memory; `body` must write every products[p]
  // element of its rows. Same operations per element as the unfused transforms: the same bits.
  // False, with nothing written, when a size does not match or there are more than 16 arrays.
  // The half spectra are in `layout`.
  bool ColumnsMany(std::span<const std::span<Complex>> data, bool inverse,
                   HalfLayout layout = HalfLayout::kRowMajor) const;
  bool InverseRowsMapForwardRows(
      std::span<const std::span<const Complex>> spec, std::span<const std::span<Complex>> out,
      const std::function<void(size_t begin, size_t end, const double* const* real,
                               double* const* products)>& body,
      HalfLayout layout = HalfLayout::kRowMajor) const;

  // Runs the row and column passes on `pool` (null: on the calling thread). Each row or column
  // is transformed by exactly the same operations whichever thread takes it: the results are
  // bit-identical for any thread count. The pool must outlive its use here.
  void set_thread_pool(const ThreadPool* pool) { pool_ = pool; }

 private:
  Fft2d(size_t rows, size_t cols, Fft1d row_fft, Fft1d col_fft)
      : rows_(rows), cols_(cols), row_fft_(std::move(row_fft)), col_fft_(std::move(col_fft)) {}

  size_t rows_, cols_;
  Fft1d row_fft_;  // length cols
  Fft1d col_fft_;  // length rows
  const ThreadPool* pool_ = nullptr;
};

// Which code the 2D passes run in this process (the bits are the same either way; for tests and
// benchmarks): whether the 8-lane vector paths are compiled into this build, and whether they run
// (decided once before main: the AVX-512F clone or an AVX-512F build; DASHI_FFT_V8=0 / 1 in the
// environment overrides, 1 only where the CPU has AVX-512F on x86-64).
bool FftVectorPathsCompiled();
bool FftUsesVectorPaths();

}  // namespace dashi

#endif  // DASHI_CORE_REF_FFT_FFT_H_
