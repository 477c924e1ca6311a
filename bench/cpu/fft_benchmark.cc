// Times dashi's deterministic 2D FFTs (core_ref/fft) against FFTW 3, single-threaded.
//
//   bazel run -c opt //bench/cpu:fft_benchmark [-- --reps N] [--sizes 64,128,256,512,1024]
//
// For each square size it times, on random input (Xoshiro256** seed 1, uniform in [-1, 1)):
//   complex 2D forward, in place: Fft2d::Forward vs fftw_plan_dft_2d (FFTW_ESTIMATE, FFTW_MEASURE)
//   real 2D forward: Fft2d::Rfft (returns a new vector) vs fftw_plan_dft_r2c_2d (out of place)
//   real 2D inverse: Fft2d::Irfft (returns a new vector) vs fftw_plan_dft_c2r_2d (out of place;
//     FFTW's c2r overwrites its input, which is copied in outside the timed region)
//   real pair: Rfft then Irfft vs r2c then c2r, in one timed region (the LES's use)
//   and the three real ones again through the caller-storage API (RfftMany into a preallocated
//   half spectrum; IrfftManyDestroying of a preallocated copy, the copy made outside the timed
//   region as for FFTW's c2r): the same transforms (same bytes, checked) without allocating and
//   zero-filling the result, and copying the input, inside the timed region — FFTW's
//   conditions, and the LES's use
// dashi's arrays are AlignedVector (64-byte aligned), as FFTW's come from fftw_malloc: with
// std::vector's 16-byte alignment every 64-byte row access of the passes splits two cache lines.
// Each measurement copies the input into the work buffer outside the timed region, then times one
// transform with std::chrono::steady_clock; after warm-up calls the median of the repetitions is
// reported (the minimum too, in parentheses: on a shared machine it is the steadier figure; the
// ratios use medians). Planning time is not counted. The outputs are checked against FFTW's.
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <span>
#include <fstream>
#include <string>
#include <vector>

#include <fftw3.h>

#include "core_ref/fft/aligned_vector.h"
#include "core_ref/fft/fft.h"
#include "core_ref/prng/prng.h"

namespace {

using dashi::Complex;
using Clock = std::chrono::steady_clock;

constexpr int kWarmup = 5;

struct Timing {
  double median = 0, min = 0;  // µs
};

// Median and minimum (in µs) of `reps` timings of `run`, each preceded by the untimed `prepare`.
template <typename Prepare, typename Run>
Timing TimeMicros(int reps, Prepare prepare, Run run) {
  for (int i = 0; i < kWarmup; ++i) {
    prepare();
    run();
  }
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    prepare();
    const auto t0 = Clock::now();
    run();
    const auto t1 = Clock::now();
    t[i] = std::chrono::duration<double, std::micro>(t1 - t0).count();
  }
  std::sort(t.begin(), t.end());
  return {t[reps / 2], t[0]};
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

double MaxRelDiff(const Complex* a, const fftw_complex* b, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    num = std::max(num, std::abs(a[i] - Complex(b[i][0], b[i][1])));
    den = std::max(den, std::abs(a[i]));
  }
  return den > 0 ? num / den : num;
}

struct Row {
  size_t size;
  Timing ours, estimate, measure;
  double check;
};

}  // namespace

int main(int argc, char** argv) {
  int reps = 0;  // 0: chosen per size
  std::vector<size_t> sizes = {64, 128, 256, 512, 1024};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
      sizes.clear();
      for (const char* p = argv[++i]; *p != '\0';) {
        sizes.push_back(static_cast<size_t>(std::atol(p)));
        while (*p != '\0' && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    }
  }
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  std::printf("fft_benchmark  %s  FFTW %s\n", date, fftw_version);
  std::printf("load average at start: %s\n\n", LoadAverage().c_str());

  std::vector<Row> c2c, r2c, c2r, pair, r2c_s, c2r_s, pair_s;
  for (size_t s : sizes) {
    const size_t n = s * s, h = s / 2 + 1;
    const int r = reps > 0 ? reps : (s <= 128 ? 401 : s == 256 ? 151 : s == 512 ? 41 : 15);
    auto fft = dashi::Fft2d::Create(s, s);
    if (!fft.ok()) {
      std::fprintf(stderr, "%s\n", fft.status().ToString().c_str());
      return 1;
    }
    dashi::Xoshiro256ss rng(1);
    std::vector<Complex> x(n);
    for (auto& z : x) {
      const double re = 2 * rng.NextDouble() - 1;
      z = Complex(re, 2 * rng.NextDouble() - 1);
    }
    dashi::AlignedVector<double> xr(n);
    for (auto& v : xr) v = 2 * rng.NextDouble() - 1;

    // Complex 2D forward, in place.
    dashi::AlignedVector<Complex> work(n);
    const Timing ours = TimeMicros(
        r, [&] { std::copy(x.begin(), x.end(), work.begin()); }, [&] { fft->Forward(work); });
    fftw_complex* buf = fftw_alloc_complex(n);
    Timing fftw_t[2];
    double check = 0;
    const unsigned flags[2] = {FFTW_ESTIMATE, FFTW_MEASURE};
    for (int f = 0; f < 2; ++f) {
      fftw_plan p = fftw_plan_dft_2d(static_cast<int>(s), static_cast<int>(s), buf, buf,
                                     FFTW_FORWARD, flags[f]);
      auto copy_in = [&] { std::memcpy(buf, x.data(), n * sizeof(fftw_complex)); };
      fftw_t[f] = TimeMicros(r, copy_in, [&] { fftw_execute(p); });
      copy_in();
      fftw_execute(p);
      if (f == 0) {
        std::copy(x.begin(), x.end(), work.begin());
        fft->Forward(work);
        check = MaxRelDiff(work.data(), buf, n);
      }
      fftw_destroy_plan(p);
    }
    fftw_free(buf);
    c2c.push_back({s, ours, fftw_t[0], fftw_t[1], check});

    // Real 2D forward.
    std::vector<Complex> half;
    const Timing ours_r = TimeMicros(
        r, [] {}, [&] { half = fft->Rfft(xr); });
    double* in = fftw_alloc_real(n);
    fftw_complex* out = fftw_alloc_complex(s * h);
    Timing fftw_r[2];
    for (int f = 0; f < 2; ++f) {
      fftw_plan p =
          fftw_plan_dft_r2c_2d(static_cast<int>(s), static_cast<int>(s), in, out, flags[f]);
      auto copy_in = [&] { std::memcpy(in, xr.data(), n * sizeof(double)); };
      fftw_r[f] = TimeMicros(r, copy_in, [&] { fftw_execute(p); });
      if (f == 0) {
        copy_in();
        fftw_execute(p);
        half = fft->Rfft(xr);
        check = MaxRelDiff(half.data(), out, s * h);
      }
      fftw_destroy_plan(p);
    }
    r2c.push_back({s, ours_r, fftw_r[0], fftw_r[1], check});

    // Real 2D inverse, and the forward + inverse pair.
    const std::vector<Complex> spec = fft->Rfft(xr);
    std::vector<double> back;
    const Timing ours_i = TimeMicros(
        r, [] {}, [&] { back = fft->Irfft(spec); });
    const Timing ours_p = TimeMicros(
        r, [] {}, [&] {
          half = fft->Rfft(xr);
          back = fft->Irfft(half);
        });
    // Caller's storage (RfftMany / IrfftManyDestroying): no allocation in the timed region.
    dashi::AlignedVector<Complex> hbuf(s * h), work_s(s * h);
    dashi::AlignedVector<double> rbuf(n);
    const std::span<const double> in_s[1] = {xr};
    const std::span<Complex> hb_s[1] = {hbuf}, work_span[1] = {work_s};
    const std::span<double> rb_s[1] = {rbuf};
    const Timing ours_rs = TimeMicros(
        r, [] {}, [&] { fft->RfftMany(in_s, hb_s); });
    const bool same_r = std::memcmp(hbuf.data(), spec.data(), s * h * sizeof(Complex)) == 0;
    const Timing ours_is = TimeMicros(
        r, [&] { std::copy(spec.begin(), spec.end(), work_s.begin()); },
        [&] { fft->IrfftManyDestroying(work_span, rb_s); });
    const std::vector<double> want_back = fft->Irfft(spec);
    const bool same_i = std::memcmp(rbuf.data(), want_back.data(), n * sizeof(double)) == 0;
    const Timing ours_ps = TimeMicros(
        r, [] {}, [&] {
          fft->RfftMany(in_s, hb_s);
          fft->IrfftManyDestroying(hb_s, rb_s);
        });
    if (!same_r || !same_i) {
      std::fprintf(stderr, "%zu²: the caller-storage transforms differ from Rfft / Irfft\n", s);
      return 1;
    }
    Timing fftw_i[2], fftw_p[2];
    double check_i = 0;
    for (int f = 0; f < 2; ++f) {
      fftw_plan fwd =
          fftw_plan_dft_r2c_2d(static_cast<int>(s), static_cast<int>(s), in, out, flags[f]);
      fftw_plan inv =
          fftw_plan_dft_c2r_2d(static_cast<int>(s), static_cast<int>(s), out, in, flags[f]);
      auto copy_spec = [&] { std::memcpy(out, spec.data(), s * h * sizeof(fftw_complex)); };
      fftw_i[f] = TimeMicros(r, copy_spec, [&] { fftw_execute(inv); });
      if (f == 0) {
        copy_spec();
        fftw_execute(inv);
        back = fft->Irfft(spec);
        double num = 0, den = 0;
        for (size_t i = 0; i < n; ++i) {
          // FFTW's c2r is unscaled: ours times rows·cols.
          num = std::max(num, std::abs(back[i] * static_cast<double>(n) - in[i]));
          den = std::max(den, std::abs(in[i]));
        }
        check_i = den > 0 ? num / den : num;
      }
      auto copy_in = [&] { std::memcpy(in, xr.data(), n * sizeof(double)); };
      fftw_p[f] = TimeMicros(r, copy_in, [&] {
        fftw_execute(fwd);
        fftw_execute(inv);
      });
      fftw_destroy_plan(fwd);
      fftw_destroy_plan(inv);
    }
    fftw_free(in);
    fftw_free(out);
    c2r.push_back({s, ours_i, fftw_i[0], fftw_i[1], check_i});
    pair.push_back({s, ours_p, fftw_p[0], fftw_p[1], 0.0});
    r2c_s.push_back({s, ours_rs, r2c.back().estimate, r2c.back().measure, r2c.back().check});
    c2r_s.push_back({s, ours_is, fftw_i[0], fftw_i[1], check_i});
    pair_s.push_back({s, ours_ps, fftw_p[0], fftw_p[1], 0.0});
  }

  auto print = [](const char* title, const std::vector<Row>& rows) {
    std::printf("%s\n", title);
    std::printf(
        "| size | ours µs | FFTW_ESTIMATE µs | FFTW_MEASURE µs | ours/EST | ours/MEAS "
        "| max rel diff vs FFTW |\n");
    std::printf(
        "| ---- | ------- | ---------------- | --------------- | -------- | --------- "
        "| -------------------- |\n");
    for (const Row& r : rows) {
      std::printf(
          "| %zu² | %.1f (min %.1f) | %.1f (min %.1f) | %.1f (min %.1f) | %.2f | %.2f "
          "| %.2e |\n",
          r.size, r.ours.median, r.ours.min, r.estimate.median, r.estimate.min, r.measure.median,
          r.measure.min, r.ours.median / r.estimate.median, r.ours.median / r.measure.median,
          r.check);
    }
    std::printf("\n");
  };
  print("complex 2D forward (in place; Fft2d::Forward vs fftw_plan_dft_2d)", c2c);
  print("real 2D forward (Fft2d::Rfft, returns a new vector, vs fftw_plan_dft_r2c_2d)", r2c);
  print("real 2D inverse (Fft2d::Irfft, returns a new vector, vs fftw_plan_dft_c2r_2d)", c2r);
  print("real pair (Rfft + Irfft vs r2c + c2r; no check column)", pair);
  print("real 2D forward, caller's storage (Fft2d::RfftMany vs fftw_plan_dft_r2c_2d)", r2c_s);
  print("real 2D inverse, caller's storage (Fft2d::IrfftManyDestroying, input copied in outside "
        "the timed region, vs fftw_plan_dft_c2r_2d)", c2r_s);
  print("real pair, caller's storage (RfftMany + IrfftManyDestroying vs r2c + c2r)", pair_s);
  std::printf(
      "single thread; median (and min) of repetitions after %d warm-up calls; input "
      "copied in outside the timed region; ratios of medians\n",
      kWarmup);
  std::printf("load average at end: %s\n", LoadAverage().c_str());
  return 0;
}
