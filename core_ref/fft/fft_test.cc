#include "core_ref/fft/fft.h"
#include "core_ref/fft/fft_test_inputs.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <gtest/gtest.h>

#include "core_ref/parallel/thread_pool.h"
#include "core_ref/prng/prng.h"

namespace dashi {
namespace {

// --- Reference: direct DFT in 50 significant decimal digits ------------------------------------

using HP = boost::multiprecision::cpp_bin_float_50;

struct HC {
  HP re = 0, im = 0;
};

const HP& Pi() {
  static const HP pi = 4 * atan(HP(1));
  return pi;
}

// cos and sin of 2πt/n, t = 0..n-1, in 50 digits.
struct HpTable {
  std::vector<HP> c, s;
  explicit HpTable(size_t n) : c(n), s(n) {
    for (size_t t = 0; t < n; ++t) {
      const HP a = 2 * Pi() * HP(t) / HP(n);
      c[t] = cos(a);
      s[t] = sin(a);
    }
  }
};

// Direct O(n²) DFT of x; forward: e^{-2πi kt/n}; inverse: e^{+2πi kt/n} and the 1/n scale.
std::vector<HC> DirectDft(const std::vector<HC>& x, bool inverse) {
  const size_t n = x.size();
  const HpTable tab(n);
  std::vector<HC> y(n);
  for (size_t k = 0; k < n; ++k) {
    HP ar = 0, ai = 0;
    for (size_t t = 0; t < n; ++t) {
      const size_t idx = (k * t) % n;
      const HP& c = tab.c[idx];
      const HP s = inverse ? HP(tab.s[idx]) : HP(-tab.s[idx]);
      ar += x[t].re * c - x[t].im * s;
      ai += x[t].re * s + x[t].im * c;
    }
    if (inverse) {
      ar /= n;
      ai /= n;
    }
    y[k] = {ar, ai};
  }
  return y;
}

// Direct DFT along both axes of a rows×cols row-major array (rows first, then columns).
std::vector<HC> DirectDft2d(std::vector<HC> x, size_t rows, size_t cols, bool inverse) {
  for (size_t i = 0; i < rows; ++i) {
    std::vector<HC> row(x.begin() + i * cols, x.begin() + (i + 1) * cols);
    row = DirectDft(row, inverse);
    std::copy(row.begin(), row.end(), x.begin() + i * cols);
  }
  for (size_t j = 0; j < cols; ++j) {
    std::vector<HC> col(rows);
    for (size_t i = 0; i < rows; ++i) col[i] = x[i * cols + j];
    col = DirectDft(col, inverse);
    for (size_t i = 0; i < rows; ++i) x[i * cols + j] = col[i];
  }
  return x;
}

std::vector<HC> ToHp(const std::vector<Complex>& v) {
  std::vector<HC> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = {HP(v[i].real()), HP(v[i].imag())};
  return h;
}

std::vector<HC> ToHp(const std::vector<double>& v) {
  std::vector<HC> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = {HP(v[i]), HP(0)};
  return h;
}

// ‖got − exact‖₂ / ‖exact‖₂, evaluated in 50 digits.
double RelL2Error(const std::vector<Complex>& got, const std::vector<HC>& exact) {
  HP num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const HP dr = HP(got[i].real()) - exact[i].re, di = HP(got[i].imag()) - exact[i].im;
    num += dr * dr + di * di;
    den += exact[i].re * exact[i].re + exact[i].im * exact[i].im;
  }
  if (den == 0) return num == 0 ? 0.0 : 1.0;
  return static_cast<double>(sqrt(num / den));
}

double RelL2Error(const std::vector<double>& got, const std::vector<HC>& exact) {
  std::vector<Complex> c(got.size());
  for (size_t i = 0; i < got.size(); ++i) c[i] = Complex(got[i], 0.0);
  return RelL2Error(c, exact);
}

double Log2(size_t n) { return std::log2(static_cast<double>(n)); }

// The accuracy contract: relative L2 error ≤ 4e-16 · max(1, log2 N).
double Bound(size_t n) { return 4e-16 * std::max(1.0, Log2(n)); }

// --- Inputs -----------------------------------------------------------------------------------

double MaxAbsDiff(const std::vector<Complex>& a, const std::vector<Complex>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

double MaxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

// --- Accuracy against the 50-digit direct DFT -------------------------------------------------

TEST(FftAccuracyTest, Complex1dAgainstDirectDft) {
  for (size_t n = 1; n <= 1024; n *= 2) {
    auto fft = Fft1d::Create(n);
    ASSERT_TRUE(fft.ok()) << fft.status().ToString();
    const std::vector<Complex> x = RandomComplex(n, 1000 + n);
    const std::vector<HC> xh = ToHp(x);

    std::vector<Complex> y = x;
    fft->Forward(y);
    const double ef = RelL2Error(y, DirectDft(xh, /*inverse=*/false));
    std::vector<Complex> z = x;
    fft->Inverse(z);
    const double ei = RelL2Error(z, DirectDft(xh, /*inverse=*/true));
    std::printf("1D complex n=%-5zu forward rel L2 %.3e  inverse %.3e  (bound %.2e)\n", n, ef, ei,
                Bound(n));
    EXPECT_LE(ef, Bound(n)) << "n=" << n;
    EXPECT_LE(ei, Bound(n)) << "n=" << n;
  }
}

// Real 1D transforms are the 1×N shapes of Fft2d.
TEST(FftAccuracyTest, Real1dAgainstDirectDft) {
  for (size_t n = 1; n <= 1024; n *= 2) {
    auto fft = Fft2d::Create(1, n);
    ASSERT_TRUE(fft.ok()) << fft.status().ToString();
    const size_t h = n / 2 + 1;
    const std::vector<double> x = RandomReal(n, 2000 + n);
    const std::vector<Complex> y = fft->Rfft(x);
    ASSERT_EQ(y.size(), h);
    std::vector<HC> exact = DirectDft(ToHp(x), false);
    exact.resize(h);
    const double ef = RelL2Error(y, exact);

    // Irfft of a random half spectrum (imaginary parts of the DC and Nyquist bins ignored).
    const std::vector<Complex> s = RandomComplex(h, 3000 + n);
    const std::vector<double> back = fft->Irfft(s);
    ASSERT_EQ(back.size(), n);
    std::vector<HC> ext(n);
    for (size_t k = 0; k < n; ++k) {
      if (k <= n / 2) {
        ext[k] = {HP(s[k].real()), (k == 0 || k == n / 2) ? HP(0) : HP(s[k].imag())};
      } else {
        ext[k] = {HP(s[n - k].real()), HP(-s[n - k].imag())};
      }
    }
    std::vector<HC> exact_back = DirectDft(ext, true);
    for (auto& v : exact_back) v.im = 0;
    const double ei = RelL2Error(back, exact_back);
    std::printf("1D real    n=%-5zu rfft    rel L2 %.3e  irfft   %.3e  (bound %.2e)\n", n, ef, ei,
                Bound(n));
    EXPECT_LE(ef, Bound(n)) << "n=" << n;
    EXPECT_LE(ei, Bound(n)) << "n=" << n;
  }
}

const std::pair<size_t, size_t> kShapes[] = {{1, 1},   {1, 8},   {8, 1},   {4, 16},
                                             {32, 32}, {64, 64}, {16, 128}};

TEST(FftAccuracyTest, Complex2dAgainstDirectDft) {
  for (const auto& [rows, cols] : kShapes) {
    auto fft = Fft2d::Create(rows, cols);
    ASSERT_TRUE(fft.ok()) << fft.status().ToString();
    const size_t n = rows * cols;
    const std::vector<Complex> x = RandomComplex(n, 4000 + 7 * rows + cols);
    const std::vector<HC> xh = ToHp(x);
    std::vector<Complex> y = x;
    fft->Forward(y);
    const double ef = RelL2Error(y, DirectDft2d(xh, rows, cols, false));
    std::vector<Complex> z = x;
    fft->Inverse(z);
    const double ei = RelL2Error(z, DirectDft2d(xh, rows, cols, true));
    std::printf("2D complex %4zux%-4zu forward rel L2 %.3e  inverse %.3e  (bound %.2e)\n", rows,
                cols, ef, ei, Bound(n));
    EXPECT_LE(ef, Bound(n)) << rows << "x" << cols;
    EXPECT_LE(ei, Bound(n)) << rows << "x" << cols;
  }
}

TEST(FftAccuracyTest, Real2dAgainstDirectDft) {
  for (const auto& [rows, cols] : kShapes) {
    auto fft = Fft2d::Create(rows, cols);
    ASSERT_TRUE(fft.ok()) << fft.status().ToString();
    const size_t n = rows * cols, h = cols / 2 + 1;
    const std::vector<double> x = RandomReal(n, 5000 + 7 * rows + cols);
    const std::vector<Complex> y = fft->Rfft(x);
    ASSERT_EQ(y.size(), rows * h);
    const std::vector<HC> full = DirectDft2d(ToHp(x), rows, cols, false);
    std::vector<HC> exact(rows * h);
    for (size_t i = 0; i < rows; ++i) {
      for (size_t k = 0; k < h; ++k) exact[i * h + k] = full[i * cols + k];
    }
    const double ef = RelL2Error(y, exact);

    // Irfft of a random half spectrum, with numpy.fft.irfft2's semantics: complex inverse DFT
    // along the columns, then along each row the Hermitian extension of the half row with the
    // imaginary parts of its DC and Nyquist bins ignored, inverse DFT, real part.
    const std::vector<Complex> s = RandomComplex(rows * h, 6000 + 7 * rows + cols);
    const std::vector<double> back = fft->Irfft(s);
    ASSERT_EQ(back.size(), n);
    std::vector<HC> sh = ToHp(s);
    for (size_t k = 0; k < h; ++k) {
      std::vector<HC> col(rows);
      for (size_t i = 0; i < rows; ++i) col[i] = sh[i * h + k];
      col = DirectDft(col, true);
      for (size_t i = 0; i < rows; ++i) sh[i * h + k] = col[i];
    }
    std::vector<HC> exact_back(n);
    for (size_t i = 0; i < rows; ++i) {
      std::vector<HC> ext(cols);
      for (size_t k = 0; k < cols; ++k) {
        if (k <= cols / 2) {
          const HC& v = sh[i * h + k];
          ext[k] = {v.re, (k == 0 || k == cols / 2) ? HP(0) : v.im};
        } else {
          const HC& v = sh[i * h + cols - k];
          ext[k] = {v.re, -v.im};
        }
      }
      ext = DirectDft(ext, true);
      for (size_t j = 0; j < cols; ++j) exact_back[i * cols + j] = {ext[j].re, HP(0)};
    }
    const double ei = RelL2Error(back, exact_back);
    std::printf("2D real    %4zux%-4zu rfft    rel L2 %.3e  irfft   %.3e  (bound %.2e)\n", rows,
                cols, ef, ei, Bound(n));
    EXPECT_LE(ef, Bound(n)) << rows << "x" << cols;
    EXPECT_LE(ei, Bound(n)) << rows << "x" << cols;
  }
}

// --- Identities -------------------------------------------------------------------------------

TEST(FftIdentityTest, RoundTrip1d) {
  for (size_t n : {1u, 2u, 8u, 512u, 4096u, 1u << 16, 1u << 20}) {
    auto fft = Fft1d::Create(n);
    ASSERT_TRUE(fft.ok());
    const std::vector<Complex> x = RandomComplex(n, 7000 + n);
    std::vector<Complex> y = x;
    fft->Forward(y);
    fft->Inverse(y);
    const double e = MaxAbsDiff(x, y);
    std::printf("1D round trip n=%-8zu max |x - inv(fwd(x))| = %.3e\n", n, e);
    EXPECT_LE(e, 1e-15 * std::max(1.0, Log2(n))) << "n=" << n;
  }
}

TEST(FftIdentityTest, RoundTrip2d) {
  for (const auto& [rows, cols] :
       {std::pair<size_t, size_t>{1, 1}, {2, 1}, {1, 2}, {8, 1024}, {256, 256}, {512, 4}}) {
    auto fft = Fft2d::Create(rows, cols);
    ASSERT_TRUE(fft.ok());
    const size_t n = rows * cols;
    const std::vector<Complex> x = RandomComplex(n, 8000 + rows + cols);
    std::vector<Complex> y = x;
    fft->Forward(y);
    fft->Inverse(y);
    const double ec = MaxAbsDiff(x, y);
    const std::vector<double> xr = RandomReal(n, 9000 + rows + cols);
    const std::vector<double> yr = fft->Irfft(fft->Rfft(xr));
    const double er = MaxAbsDiff(xr, yr);
    std::printf("2D round trip %4zux%-4zu complex %.3e  real %.3e\n", rows, cols, ec, er);
    EXPECT_LE(ec, 1e-15 * std::max(1.0, Log2(n)));
    EXPECT_LE(er, 1e-15 * std::max(1.0, Log2(n)));
  }
}

TEST(FftIdentityTest, Parseval) {
  for (size_t n : {16u, 1024u, 1u << 14}) {
    auto fft = Fft1d::Create(n);
    ASSERT_TRUE(fft.ok());
    std::vector<Complex> x = RandomComplex(n, 10000 + n);
    long double ex = 0, eX = 0;
    for (const auto& z : x) ex += std::norm(z);
    fft->Forward(x);
    for (const auto& z : x) eX += std::norm(z);
    const double rel = static_cast<double>(std::fabs(eX / n - ex) / ex);
    EXPECT_LE(rel, 1e-14) << "n=" << n;
  }
  auto fft = Fft2d::Create(64, 32);
  ASSERT_TRUE(fft.ok());
  const std::vector<double> x = RandomReal(64 * 32, 11000);
  const std::vector<Complex> X = fft->Rfft(x);
  long double ex = 0, eX = 0;
  for (double v : x) ex += v * v;
  // Half spectrum: columns 1..cols/2-1 stand for two bins each.
  for (size_t i = 0; i < 64; ++i) {
    for (size_t k = 0; k < 17; ++k) eX += (k == 0 || k == 16 ? 1 : 2) * std::norm(X[i * 17 + k]);
  }
  EXPECT_LE(static_cast<double>(std::fabs(eX / (64 * 32) - ex) / ex), 1e-14);
}

TEST(FftIdentityTest, Linearity) {
  const size_t rows = 32, cols = 64, n = rows * cols;
  auto fft = Fft2d::Create(rows, cols);
  ASSERT_TRUE(fft.ok());
  const std::vector<Complex> x = RandomComplex(n, 12000), y = RandomComplex(n, 12001);
  const Complex a(0.75, -1.25), b(-2.0, 0.5);
  std::vector<Complex> fx = x, fy = y, fxy(n);
  for (size_t i = 0; i < n; ++i) fxy[i] = a * x[i] + b * y[i];
  fft->Forward(fx);
  fft->Forward(fy);
  fft->Forward(fxy);
  double err = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    err = std::max(err, std::abs(fxy[i] - (a * fx[i] + b * fy[i])));
    scale = std::max(scale, std::abs(fxy[i]));
  }
  EXPECT_LE(err, 1e-14 * scale);
}

// A single cosine mode x[t] = cos(2π k0 t/N) transforms to N/2 at k0 and N − k0, 0 elsewhere.
TEST(FftIdentityTest, CosineModeGivesTwoSpikes) {
  for (size_t n : {8u, 256u, 1u << 20}) {
    const size_t k0 = n / 8 + 1;
    auto fft = Fft1d::Create(n);
    ASSERT_TRUE(fft.ok());
    std::vector<Complex> x(n);
    for (size_t t = 0; t < n; ++t) {
      const long double a = 2.0L * 3.14159265358979323846264338327950288L *
                            static_cast<long double>((k0 * t) % n) / static_cast<long double>(n);
      x[t] = Complex(static_cast<double>(std::cos(a)), 0.0);
    }
    fft->Forward(x);
    double off = 0;
    for (size_t k = 0; k < n; ++k) {
      if (k == k0 || k == n - k0) {
        EXPECT_NEAR(x[k].real(), n / 2.0, 1e-13 * n) << "n=" << n << " k=" << k;
        EXPECT_NEAR(x[k].imag(), 0.0, 1e-13 * n) << "n=" << n << " k=" << k;
      } else {
        off = std::max(off, std::abs(x[k]));
      }
    }
    std::printf("cosine mode n=%-8zu k0=%zu: largest other bin %.3e (N/2 = %zu)\n", n, k0, off,
                n / 2);
    EXPECT_LE(off, 1e-13 * n) << "n=" << n;
  }
  // 2D: cos(2π(3i/16 + 5j/32)) on 16×32: rows·cols/2 at (3, 5) in the half spectrum (its mirror
  // (13, 27) lies in the other half).
  const size_t rows = 16, cols = 32, h = cols / 2 + 1;
  auto fft = Fft2d::Create(rows, cols);
  ASSERT_TRUE(fft.ok());
  std::vector<double> x(rows * cols);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < cols; ++j) {
      const size_t phase = (3 * 2 * i + 5 * j) % cols;  // in units of 2π/32
      x[i * cols + j] = static_cast<double>(
          std::cos(2.0L * 3.14159265358979323846264338327950288L * phase / cols));
    }
  }
  const std::vector<Complex> X = fft->Rfft(x);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t k = 0; k < h; ++k) {
      const double expect = (i == 3 && k == 5) ? rows * cols / 2.0 : 0.0;
      EXPECT_NEAR(X[i * h + k].real(), expect, 1e-12) << i << "," << k;
      EXPECT_NEAR(X[i * h + k].imag(), 0.0, 1e-12) << i << "," << k;
    }
  }
}

TEST(FftIdentityTest, RfftMatchesComplexForward) {
  for (const auto& [rows, cols] :
       {std::pair<size_t, size_t>{1, 1}, {1, 2}, {2, 1}, {2, 16}, {64, 64}, {16, 128},
        {128, 8}}) {
    auto fft = Fft2d::Create(rows, cols);
    ASSERT_TRUE(fft.ok());
    const size_t n = rows * cols, h = cols / 2 + 1;
    const std::vector<double> x = RandomReal(n, 13000 + rows * 3 + cols);
    std::vector<Complex> xc(n);
    for (size_t i = 0; i < n; ++i) xc[i] = Complex(x[i], 0.0);
    fft->Forward(xc);
    const std::vector<Complex> half = fft->Rfft(x);
    std::vector<Complex> expect(rows * h);
    double scale = 0;
    for (size_t i = 0; i < rows; ++i) {
      for (size_t k = 0; k < h; ++k) {
        expect[i * h + k] = xc[i * cols + k];
        scale = std::max(scale, std::abs(xc[i * cols + k]));
      }
    }
    EXPECT_LE(MaxAbsDiff(half, expect), 1e-15 * std::max(1.0, scale) * std::max(1.0, Log2(n)))
        << rows << "x" << cols;
    // Irfft of the full complex spectrum's half equals the real part of the complex inverse.
    std::vector<double> back = fft->Irfft(expect);
    fft->Inverse(xc);
    std::vector<double> re(n);
    for (size_t i = 0; i < n; ++i) re[i] = xc[i].real();
    EXPECT_LE(MaxAbsDiff(back, re), 1e-15 * std::max(1.0, Log2(n))) << rows << "x" << cols;
  }
}

// --- Determinism ------------------------------------------------------------------------------

TEST(FftDeterminismTest, RepeatedRunsGiveIdenticalBytes) {
  const size_t rows = 128, cols = 64, n = rows * cols;
  const std::vector<Complex> x = RandomComplex(n, 14000);
  const std::vector<double> xr = RandomReal(n, 14001);
  auto f1 = Fft2d::Create(rows, cols);
  auto f2 = Fft2d::Create(rows, cols);  // an independently built plan
  ASSERT_TRUE(f1.ok() && f2.ok());
  std::vector<Complex> a = x, b = x;
  f1->Forward(a);
  f2->Forward(b);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(Complex)), 0);
  f1->Inverse(a);
  f2->Inverse(b);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(Complex)), 0);
  const auto ra = f1->Rfft(xr), rb = f2->Rfft(xr);
  EXPECT_EQ(std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(Complex)), 0);
  const auto ia = f1->Irfft(ra), ib = f2->Irfft(rb);
  EXPECT_EQ(std::memcmp(ia.data(), ib.data(), ia.size() * sizeof(double)), 0);

  auto g1 = Fft1d::Create(4096);
  auto g2 = Fft1d::Create(4096);
  ASSERT_TRUE(g1.ok() && g2.ok());
  std::vector<Complex> c = RandomComplex(4096, 14002), d = c;
  g1->Forward(c);
  g2->Forward(d);
  EXPECT_EQ(std::memcmp(c.data(), d.data(), c.size() * sizeof(Complex)), 0);
}

// Every lane of a block performs the same operations in the same order, so the 2D transform is
// bit-identical to 1D transforms of every row followed by 1D transforms of every column, whatever
// block (and lane) a row or column shares.
TEST(FftDeterminismTest, TwoDimensionalEqualsComposed1dBitForBit) {
  for (const auto& [rows, cols] :
       {std::pair<size_t, size_t>{1, 256}, {4, 256}, {16, 64}, {32, 2}, {16, 8}, {16, 2048},
        {1, size_t{1} << 18}, {128, 64}, {512, 16}, {64, 128}, {32, 32}}) {
    auto f2 = Fft2d::Create(rows, cols);
    auto fr = Fft1d::Create(cols);
    auto fc = Fft1d::Create(rows);
    ASSERT_TRUE(f2.ok() && fr.ok() && fc.ok());
    for (bool inverse : {false, true}) {
      const std::vector<Complex> x = RandomComplex(rows * cols, 15000 + rows + cols);
      std::vector<Complex> a = x, b = x;
      if (inverse) {
        f2->Inverse(a);
      } else {
        f2->Forward(a);
      }
      for (size_t i = 0; i < rows; ++i) {
        std::span<Complex> row(b.data() + i * cols, cols);
        if (inverse) {
          fr->Inverse(row);
        } else {
          fr->Forward(row);
        }
      }
      for (size_t j = 0; j < cols; ++j) {
        std::vector<Complex> col(rows);
        for (size_t i = 0; i < rows; ++i) col[i] = b[i * cols + j];
        if (inverse) {
          fc->Inverse(col);
        } else {
          fc->Forward(col);
        }
        for (size_t i = 0; i < rows; ++i) b[i * cols + j] = col[i];
      }
      // Inverse: Fft2d scales once by 1/(rows·cols), the composition by 1/cols then 1/rows;
      // scaling by powers of two is exact (no underflow here), so the bits still agree.
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Complex)), 0)
          << rows << "x" << cols << (inverse ? " inverse" : " forward");
    }
  }
}

// --- Sizes ------------------------------------------------------------------------------------

// Issue 16 #5: the passes split over 2, 3, 4 and 5 threads give the one-thread bytes, on shapes
// where a chunking bug would show — fewer rows than a block (1, 2, 4), one block (8), a block
// pair (16), several blocks per thread (128), non-square (8×64, 64×8), and thread counts that do
// not divide the block count.
TEST(FftDeterminismTest, AnyThreadCountGivesTheOneThreadBytes) {
  const std::pair<size_t, size_t> shapes[] = {{1, 1},  {1, 8},  {2, 2},   {4, 16},  {8, 8},
                                              {16, 16}, {8, 64}, {64, 8}, {32, 128}, {128, 128}};
  for (int threads = 2; threads <= 5; ++threads) {
    ThreadPool pool(threads);
    for (const auto& [rows, cols] : shapes) {
      SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + ", " +
                   std::to_string(threads) + " threads, seed 16");
      StatusOr<Fft2d> one = Fft2d::Create(rows, cols);
      StatusOr<Fft2d> many = Fft2d::Create(rows, cols);
      ASSERT_TRUE(one.ok() && many.ok());
      many->set_thread_pool(&pool);
      const std::vector<std::complex<double>> x = RandomComplex(rows * cols, 16);
      std::vector<std::complex<double>> a = x, b = x;
      one->Forward(a);
      many->Forward(b);
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0]))) << "Forward";
      one->Inverse(a);
      many->Inverse(b);
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0]))) << "Inverse";
      const std::vector<double> r = RandomReal(rows * cols, 17);
      const std::vector<std::complex<double>> ha = one->Rfft(r), hb = many->Rfft(r);
      ASSERT_EQ(ha.size(), hb.size());
      EXPECT_EQ(0, std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(ha[0]))) << "Rfft";
      const std::vector<double> ra = one->Irfft(ha), rb = many->Irfft(ha);
      ASSERT_EQ(ra.size(), rb.size());
      EXPECT_EQ(0, std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(ra[0]))) << "Irfft";
    }
  }
}

const char* LayoutName(HalfLayout layout) {
  switch (layout) {
    case HalfLayout::kRowMajor:
      return "row-major";
    case HalfLayout::kTiled:
      return "tiled";
  }
  return "?";
}

// A copy of a row-major half spectrum in `layout`, its padding set to NaN: the
// transforms must never let a padding value reach a real bin.
std::vector<std::complex<double>> InLayout(const Fft2d& fft,
                                           const std::vector<std::complex<double>>& row_major,
                                           HalfLayout layout) {
  std::vector<std::complex<double>> out(fft.HalfSize(layout),
                                        std::complex<double>(std::nan(""), std::nan("")));
  for (size_t r = 0; r < fft.rows(); ++r) {
    for (size_t k = 0; k < fft.half_cols(); ++k) {
      out[fft.HalfIndex(r, k, layout)] = row_major[r * fft.half_cols() + k];
    }
  }
  return out;
}

std::vector<std::complex<double>> ToRowMajor(const Fft2d& fft,
                                             std::span<const std::complex<double>> data,
                                             HalfLayout layout) {
  std::vector<std::complex<double>> out(fft.HalfSize(HalfLayout::kRowMajor));
  EXPECT_TRUE(fft.ConvertHalf(data, layout, out, HalfLayout::kRowMajor));
  return out;
}

// The batched real transforms (RfftMany, IrfftManyDestroying) and the fused row section
// (ColumnsMany + InverseRowsMapForwardRows) give, for every array, the bytes of the one-array
// transforms on one thread, for 1..5 threads, every half-spectrum layout (NaN in the padding)
// and shapes with fewer rows than a block pair, one pair, several per thread,
// fewer than 8 bins a row and non-square ones; size mismatches write nothing.
TEST(FftDeterminismTest, BatchedAndFusedTransformsGiveTheSingleTransformBytes) {
  const std::pair<size_t, size_t> shapes[] = {{1, 2},   {2, 2},   {4, 16},   {8, 8},
                                              {16, 16}, {64, 8},  {32, 128}, {128, 64},
                                              {16, 4},  {32, 32}, {64, 256},
                                              // one column (a single bin), one row, very
                                              // non-square, tiles of fewer than 16 rows
                                              {1, 1},   {8, 1},   {16, 1},   {1024, 1},
                                              {1, 1024}, {2, 1024}, {1024, 2}, {256, 16},
                                              {512, 8}, {128, 2}, {4, 4}};
  constexpr size_t kArrays = 3;
  for (int threads = 1; threads <= 5; ++threads) {
    ThreadPool pool(threads);
    for (const HalfLayout layout : {HalfLayout::kRowMajor, HalfLayout::kTiled}) {
      for (const auto& [rows, cols] : shapes) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + ", " +
                     std::to_string(threads) + " threads, " +
                     LayoutName(layout));
        StatusOr<Fft2d> one = Fft2d::Create(rows, cols);
        StatusOr<Fft2d> many = Fft2d::Create(rows, cols);
        ASSERT_TRUE(one.ok() && many.ok());
        many->set_thread_pool(&pool);
        const size_t hs = rows * one->half_cols();
        const size_t hl = many->HalfSize(layout);
        std::vector<double> real[kArrays];
        std::vector<std::complex<double>> want_hat[kArrays], got_hat[kArrays];
        std::span<const double> in[kArrays];
        std::span<std::complex<double>> out[kArrays];
        for (size_t a = 0; a < kArrays; ++a) {
          real[a] = RandomReal(rows * cols, 40 + a);
          want_hat[a] = one->Rfft(real[a]);
          got_hat[a].assign(hl, std::complex<double>(7, 7));
          in[a] = real[a];
          out[a] = got_hat[a];
        }
        ASSERT_TRUE(many->RfftMany(in, out, layout));
        for (size_t a = 0; a < kArrays; ++a) {
          EXPECT_EQ(0, std::memcmp(want_hat[a].data(), ToRowMajor(*many, got_hat[a], layout).data(),
                                   hs * 16))
              << "RfftMany";
        }
        // Inverse: the spectra (NaN padding) are destroyed, the outputs must equal Irfft's.
        std::vector<double> got_real[kArrays];
        std::span<double> real_out[kArrays];
        for (size_t a = 0; a < kArrays; ++a) {
          got_hat[a] = InLayout(*many, want_hat[a], layout);
          out[a] = got_hat[a];
          got_real[a].assign(rows * cols, 7.0);
          real_out[a] = got_real[a];
        }
        ASSERT_TRUE(many->IrfftManyDestroying(out, real_out, layout));
        for (size_t a = 0; a < kArrays; ++a) {
          const std::vector<double> want = one->Irfft(want_hat[a]);
          EXPECT_EQ(0, std::memcmp(want.data(), got_real[a].data(), want.size() * 8))
              << "IrfftManyDestroying";
        }
        // Fused: inverse, a row-wise map mixing the arrays, forward.
        auto map = [&](const double* const* r, double* const* p, size_t count) {
          for (size_t k = 0; k < count; ++k) {
            p[0][k] = r[0][k] * r[1][k] - r[2][k];
            p[1][k] = 1.5 * r[2][k] + r[0][k];
          }
        };
        std::vector<double> want_r[kArrays], want_p[2];
        const double* rp[kArrays];
        double* pp[2];
        for (size_t a = 0; a < kArrays; ++a) {
          want_r[a] = one->Irfft(want_hat[a]);
          rp[a] = want_r[a].data();
        }
        for (size_t q = 0; q < 2; ++q) {
          want_p[q].assign(rows * cols, 0.0);
          pp[q] = want_p[q].data();
        }
        map(rp, pp, rows * cols);
        std::vector<std::complex<double>> spec[kArrays], fused[2];
        std::span<std::complex<double>> spec_io[kArrays], fused_out[2];
        std::span<const std::complex<double>> spec_in[kArrays];
        for (size_t a = 0; a < kArrays; ++a) {
          spec[a] = InLayout(*many, want_hat[a], layout);
          spec_io[a] = spec[a];
          spec_in[a] = spec[a];
        }
        for (size_t q = 0; q < 2; ++q) {
          fused[q].assign(hl, std::complex<double>(std::nan(""), 7));
          fused_out[q] = fused[q];
        }
        ASSERT_TRUE(many->ColumnsMany(spec_io, /*inverse=*/true, layout));
        ASSERT_TRUE(many->InverseRowsMapForwardRows(
            spec_in, fused_out,
            [&](size_t b, size_t e, const double* const* r, double* const* p) {
              map(r, p, (e - b) * cols);
            },
            layout));
        ASSERT_TRUE(many->ColumnsMany(fused_out, /*inverse=*/false, layout));
        for (size_t q = 0; q < 2; ++q) {
          const std::vector<std::complex<double>> want = one->Rfft(want_p[q]);
          EXPECT_EQ(0,
                    std::memcmp(want.data(), ToRowMajor(*many, fused[q], layout).data(), hs * 16))
              << "fused " << q;
        }
        // Mismatches (a short array; the other layout's size where they differ): nothing
        // written. (1×1 row-major holds one value: its short array is empty.)
        std::vector<std::complex<double>> short_hat(hl - 1, std::complex<double>(3, 3));
        std::span<std::complex<double>> bad_out[1] = {short_hat};
        EXPECT_FALSE(many->RfftMany(std::span(in, 1), bad_out, layout));
        EXPECT_FALSE(many->RfftMany(std::span(in, 2), std::span(out, 1), layout));
        EXPECT_FALSE(many->ColumnsMany(bad_out, true, layout));
        if (!short_hat.empty()) EXPECT_EQ(short_hat[0], std::complex<double>(3, 3));
        const HalfLayout other =
            layout == HalfLayout::kTiled ? HalfLayout::kRowMajor : HalfLayout::kTiled;
        if (many->HalfSize(other) != hl) {
          std::span<std::complex<double>> wrong[1] = {got_hat[0]};
          const std::vector<std::complex<double>> before = got_hat[0];
          EXPECT_FALSE(many->ColumnsMany(wrong, true, other));
          EXPECT_FALSE(many->RfftMany(std::span(in, 1), wrong, other));
          EXPECT_EQ(0, std::memcmp(before.data(), got_hat[0].data(), hl * 16));
        }
      }
    }
  }
}

// The layout conversion: every bin lands at its own HalfIndex, the padding is zero, both ways
// round trip, and wrong sizes or one array for both are refused.
TEST(FftLayoutTest, ConvertHalfMovesEveryBin) {
  for (const auto& [rows, cols] : {std::pair<size_t, size_t>{1, 2}, {8, 8}, {16, 4}, {32, 64},
                                   {64, 512}, {4, 32}}) {
    StatusOr<Fft2d> fft = Fft2d::Create(rows, cols);
    ASSERT_TRUE(fft.ok());
    const size_t half = fft->half_cols(), blocks = (half + 7) / 8;
    EXPECT_EQ(fft->HalfSize(HalfLayout::kRowMajor), rows * half);
    EXPECT_EQ(fft->HalfSize(HalfLayout::kTiled), blocks * 8 * rows);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t k = 0; k < half; ++k) {
        EXPECT_EQ(fft->HalfIndex(r, k, HalfLayout::kRowMajor), r * half + k);
        const size_t tr = std::min<size_t>(16, rows);
        EXPECT_EQ(fft->HalfIndex(r, k, HalfLayout::kTiled),
                  (r / tr) * blocks * 8 * tr + (k / 8) * 8 * tr + 8 * (r % tr) + k % 8);
      }
    }
    std::vector<std::complex<double>> rm(rows * half);
    for (size_t i = 0; i < rm.size(); ++i) rm[i] = std::complex<double>(i + 1.0, -1.0 * i);
    for (const HalfLayout layout : {HalfLayout::kTiled}) {
      SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " " + LayoutName(layout));
      const size_t size = fft->HalfSize(layout);
      std::vector<std::complex<double>> cb(size, std::complex<double>(9, 9));
      ASSERT_TRUE(fft->ConvertHalf(rm, HalfLayout::kRowMajor, cb, layout));
      std::vector<bool> seen(size, false);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t k = 0; k < half; ++k) {
          const size_t at = fft->HalfIndex(r, k, layout);
          ASSERT_LT(at, size);
          EXPECT_FALSE(seen[at]);
          seen[at] = true;
          EXPECT_EQ(cb[at], rm[r * half + k]);
        }
      }
      size_t padding = 0;
      for (size_t i = 0; i < size; ++i) {
        if (!seen[i]) {
          ++padding;
          EXPECT_EQ(cb[i], std::complex<double>(0, 0));
        }
      }
      EXPECT_EQ(padding, size - rows * half);
      std::vector<std::complex<double>> back(rows * half);
      ASSERT_TRUE(fft->ConvertHalf(cb, layout, back, HalfLayout::kRowMajor));
      EXPECT_EQ(back, rm);
      EXPECT_FALSE(fft->ConvertHalf(std::span(rm).first(rm.size() - 1), HalfLayout::kRowMajor,
                                    cb, layout));
      EXPECT_FALSE(fft->ConvertHalf(cb, layout, cb, layout));
    }
    std::vector<std::complex<double>> copy(rows * half);
    ASSERT_TRUE(fft->ConvertHalf(rm, HalfLayout::kRowMajor, copy, HalfLayout::kRowMajor));
    EXPECT_EQ(copy, rm);
  }
}

TEST(FftSizeTest, InvalidSizesAreRejected) {
  for (size_t n : {size_t{0}, size_t{3}, size_t{6}, size_t{1} << 21, size_t{1000}}) {
    auto f = Fft1d::Create(n);
    ASSERT_FALSE(f.ok()) << n;
    EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument) << n;
  }
  for (const auto& [rows, cols] :
       {std::pair<size_t, size_t>{0, 4}, {4, 0}, {3, 4}, {4, 6}, {size_t{1} << 21, 1},
        {1, size_t{1} << 21}, {size_t{1} << 20, size_t{1} << 20}}) {
    auto f = Fft2d::Create(rows, cols);
    ASSERT_FALSE(f.ok()) << rows << "x" << cols;
    EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument) << rows << "x" << cols;
  }
  EXPECT_TRUE(Fft1d::Create(1).ok());
  EXPECT_TRUE(Fft1d::Create(size_t{1} << 20).ok());
  EXPECT_TRUE(IsPowerOfTwo(1));
  EXPECT_TRUE(IsPowerOfTwo(1024));
  EXPECT_FALSE(IsPowerOfTwo(0));
  EXPECT_FALSE(IsPowerOfTwo(12));
}

TEST(FftSizeTest, MismatchedSpansAreLeftAlone) {
  auto f1 = Fft1d::Create(8);
  auto f2 = Fft2d::Create(4, 8);
  ASSERT_TRUE(f1.ok() && f2.ok());
  std::vector<Complex> x = RandomComplex(7, 16000), y = x;
  f1->Forward(x);
  f1->Inverse(x);
  f2->Forward(x);
  f2->Inverse(x);
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(Complex)), 0);
  EXPECT_TRUE(f2->Rfft(std::vector<double>(31)).empty());
  EXPECT_TRUE(f2->Irfft(std::vector<Complex>(4 * 4)).empty());
  EXPECT_EQ(f2->Irfft(std::vector<Complex>(4 * 5)).size(), 32u);
}

}  // namespace
}  // namespace dashi
