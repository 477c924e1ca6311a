// VkFftPlan against core_ref/fft: the R2C forward equals Fft2d::Rfft and the C2R inverse equals
// Fft2d::Irfft (layout and 1/N² scaling), in fp64 and fp32, with guard words after every output
// and zero validation messages.
#include "accel_vulkan/decode/vkfft_plan.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/decode/vkfft_binary_cache.h"
#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/fft/fft.h"
#include "core_ref/prng/prng.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk {
namespace {

using testing::VulkanTest;

struct Case {
  uint32_t n;
  Precision precision;
};

class VkFftPlanTest : public VulkanTest, public ::testing::WithParamInterface<Case> {
 protected:
  // Uploads `input` into `src`, records one transform of `plan` (forward: real → spectrum,
  // inverse: spectrum → real) between barriers into `batch`, submits, and returns the first
  // `out_bytes` of `dst`; the guard words after both buffers' payloads must be intact.
  std::vector<uint8_t> Transform(VkFftPlan& plan, bool forward, CommandBatch& batch,
                                 DeviceBuffer& src, uint64_t src_bytes,
                                 const std::vector<uint8_t>& input, const DeviceBuffer& dst,
                                 uint64_t out_bytes) {
    EXPECT_TRUE(src.Upload(ctx(), std::as_bytes(std::span(input))).ok());
    EXPECT_TRUE(batch.Begin().ok());
    batch.Barrier();
    const Status recorded = forward ? plan.RecordForward(batch.command_buffer())
                                    : plan.RecordInverse(batch.command_buffer());
    EXPECT_TRUE(recorded.ok()) << recorded.ToString();
    batch.Barrier();
    EXPECT_TRUE(batch.SubmitAndWait().ok());
    StatusOr<std::vector<uint8_t>> out = dst.DownloadValues<uint8_t>(ctx(), out_bytes);
    EXPECT_TRUE(out.ok());
    EXPECT_TRUE(GuardsIntact(src, src_bytes));
    EXPECT_TRUE(GuardsIntact(dst, out_bytes));
    return out.ok() ? *out : std::vector<uint8_t>(out_bytes);
  }
};

// max |a − b| / max |b| over interleaved scalars.
double MaxRel(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    num = std::max(num, std::fabs(a[i] - b[i]));
    den = std::max(den, std::fabs(b[i]));
  }
  return num / den;
}

std::vector<double> ToScalars(Precision p, const std::vector<uint8_t>& raw) {
  std::vector<double> out;
  if (p == Precision::kFp64) {
    out.resize(raw.size() / 8);
    std::memcpy(out.data(), raw.data(), raw.size());
  } else {
    std::vector<float> f(raw.size() / 4);
    std::memcpy(f.data(), raw.data(), raw.size());
    out.assign(f.begin(), f.end());
  }
  return out;
}

std::vector<uint8_t> FromScalars(Precision p, const std::vector<double>& v) {
  std::vector<uint8_t> raw(v.size() * ScalarBytes(p));
  if (p == Precision::kFp64) {
    std::memcpy(raw.data(), v.data(), raw.size());
  } else {
    std::vector<float> f(v.begin(), v.end());
    std::memcpy(raw.data(), f.data(), raw.size());
  }
  return raw;
}

TEST_P(VkFftPlanTest, ForwardIsRfftAndInverseIsIrfft) {
  const auto [n, p] = GetParam();
  const uint64_t spec_bytes = VkFftPlan::SpectrumBytes(n, p);
  const uint64_t real_bytes = VkFftPlan::RealBytes(n, p);
  StatusOr<DeviceBuffer> spec = GuardedBuffer(spec_bytes);
  StatusOr<DeviceBuffer> real = GuardedBuffer(VkFftPlan::RealBufferBytes(n, p));
  ASSERT_TRUE(spec.ok() && real.ok());
  const auto t0 = std::chrono::steady_clock::now();
  StatusOr<std::unique_ptr<VkFftPlan>> plan = VkFftPlan::Create(ctx(), n, p, *spec, *real);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::printf(
      "N=%u %s plan created in %.0f ms\n", n, PrecisionName(p),
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  StatusOr<std::unique_ptr<CommandBatch>> batch = CommandBatch::Create(ctx());
  ASSERT_TRUE(batch.ok());
  StatusOr<Fft2d> fft = Fft2d::Create(n, n);
  ASSERT_TRUE(fft.ok());

  Xoshiro256ss rng(n);
  std::vector<double> x = dashi::testing::UniformValues(rng, size_t{n} * n, 1.0);
  if (p == Precision::kFp32) {
    for (double& v : x) v = static_cast<float>(v);  // the device sees exactly these
  }
  const std::vector<Complex> ref_half = fft->Rfft(x);
  std::vector<double> ref_half_scalars(ref_half.size() * 2);
  for (size_t i = 0; i < ref_half.size(); ++i) {
    ref_half_scalars[2 * i] = ref_half[i].real();
    ref_half_scalars[2 * i + 1] = ref_half[i].imag();
  }
  const double tol = p == Precision::kFp64 ? 1e-14 : 2e-6;

  // Forward.
  const std::vector<uint8_t> got_half = Transform(**plan, /*forward=*/true, **batch, *real,
                                                  real_bytes, FromScalars(p, x), *spec, spec_bytes);
  const double fwd_err = MaxRel(ToScalars(p, got_half), ref_half_scalars);
  EXPECT_LE(fwd_err, tol) << "forward R2C vs core_ref Rfft";

  // Inverse of a spectrum with an arbitrary (non-Hermitian-consistent) kx = 0 column would be
  // ambiguous; use the exact spectrum of a real field, perturbed on the interior columns.
  std::vector<Complex> half = ref_half;
  const uint32_t hc = n / 2 + 1;
  for (uint32_t r = 0; r < n; ++r) {
    for (uint32_t c = 1; c + 1 < hc; ++c) half[r * hc + c] *= 1.0 + 0.5 * rng.NextDouble();
  }
  std::vector<double> half_scalars(half.size() * 2);
  for (size_t i = 0; i < half.size(); ++i) {
    half_scalars[2 * i] = half[i].real();
    half_scalars[2 * i + 1] = half[i].imag();
  }
  if (p == Precision::kFp32) {
    for (double& v : half_scalars) v = static_cast<float>(v);
    for (size_t i = 0; i < half.size(); ++i) {
      half[i] = {half_scalars[2 * i], half_scalars[2 * i + 1]};
    }
  }
  const std::vector<double> ref_real = fft->Irfft(half);
  const std::vector<uint8_t> got_real =
      Transform(**plan, /*forward=*/false, **batch, *spec, spec_bytes,
                FromScalars(p, half_scalars), *real, real_bytes);
  const double inv_err = MaxRel(ToScalars(p, got_real), ref_real);
  EXPECT_LE(inv_err, tol) << "inverse C2R vs core_ref Irfft (normalised 1/N^2)";
  std::printf("N=%u %s: forward max rel err %.3g, inverse %.3g\n", n, PrecisionName(p), fwd_err,
              inv_err);
}

INSTANTIATE_TEST_SUITE_P(Sizes, VkFftPlanTest,
                         ::testing::Values(Case{8, Precision::kFp64}, Case{32, Precision::kFp64},
                                           Case{64, Precision::kFp64}, Case{128, Precision::kFp64},
                                           Case{32, Precision::kFp32}, Case{128, Precision::kFp32}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(PrecisionName(info.param.precision)) + "_N" +
                                  std::to_string(info.param.n);
                         });

TEST_F(VulkanTest, VkFftPlanRejectsBadSizes) {
  StatusOr<DeviceBuffer> small = DeviceBuffer::Create(ctx(), 64);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(VkFftPlan::Create(ctx(), 100, Precision::kFp64, *small, *small).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(VkFftPlan::Create(ctx(), 64, Precision::kFp64, *small, *small).status().code(),
            StatusCode::kInvalidArgument);
}

// The on-disk binary cache (vkfft_binary_cache.h): the first plan compiles and saves, the second
// loads the file and transforms bit for bit as the compiled one; a truncated or foreign file is
// ignored (compiled and rewritten, never handed to VkFFT); "off" disables it.
class VkFftCacheTest : public VkFftPlanTest {};

TEST_F(VkFftCacheTest, CachedPlanTransformsLikeACompiledOne) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/vkfft_cache";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(setenv("DASHI_CACHE_DIR", dir.c_str(), 1), 0);
  const uint32_t n = 32;
  const Precision p = Precision::kFp64;
  const uint64_t spec_bytes = VkFftPlan::SpectrumBytes(n, p);
  StatusOr<DeviceBuffer> spec = GuardedBuffer(spec_bytes);
  StatusOr<DeviceBuffer> real = GuardedBuffer(VkFftPlan::RealBufferBytes(n, p));
  ASSERT_TRUE(spec.ok() && real.ok());
  StatusOr<std::unique_ptr<CommandBatch>> batch = CommandBatch::Create(ctx());
  ASSERT_TRUE(batch.ok());
  Xoshiro256ss rng(5);
  const std::vector<double> x = dashi::testing::UniformValues(rng, size_t{n} * n, 1.0);
  auto forward = [&](VkFftPlan& plan) {
    return Transform(plan, /*forward=*/true, **batch, *real, VkFftPlan::RealBytes(n, p),
                     FromScalars(p, x), *spec, spec_bytes);
  };

  StatusOr<std::unique_ptr<VkFftPlan>> compiled = VkFftPlan::Create(ctx(), n, p, *spec, *real);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_EQ((*compiled)->cache_use(), VkFftPlan::CacheUse::kCompiledAndSaved);
  const std::vector<uint8_t> want = forward(**compiled);
  compiled->reset();
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);

  StatusOr<std::unique_ptr<VkFftPlan>> loaded = VkFftPlan::Create(ctx(), n, p, *spec, *real);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->cache_use(), VkFftPlan::CacheUse::kLoaded);
  EXPECT_EQ(forward(**loaded), want);
  loaded->reset();

  // Truncated: ignored, recompiled, rewritten whole.
  const auto full = std::filesystem::file_size(files[0]);
  std::filesystem::resize_file(files[0], full / 2);
  StatusOr<std::unique_ptr<VkFftPlan>> again = VkFftPlan::Create(ctx(), n, p, *spec, *real);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->cache_use(), VkFftPlan::CacheUse::kCompiledAndSaved);
  EXPECT_EQ(forward(**again), want);
  again->reset();
  EXPECT_EQ(std::filesystem::file_size(files[0]), full);

  // A flipped payload byte fails the hash: ignored too.
  {
    std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(full - 5));
    f.put('\x5a');
  }
  StatusOr<std::unique_ptr<VkFftPlan>> flipped = VkFftPlan::Create(ctx(), n, p, *spec, *real);
  ASSERT_TRUE(flipped.ok());
  EXPECT_EQ((*flipped)->cache_use(), VkFftPlan::CacheUse::kCompiledAndSaved);
  EXPECT_EQ(forward(**flipped), want);
  flipped->reset();

  ASSERT_EQ(setenv("DASHI_CACHE_DIR", "off", 1), 0);
  StatusOr<std::unique_ptr<VkFftPlan>> off = VkFftPlan::Create(ctx(), n, p, *spec, *real);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ((*off)->cache_use(), VkFftPlan::CacheUse::kOff);
}

TEST(VkFftBinaryCacheTest, RefusesFilesOfAnotherKeyOrShape) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/cache_keys";
  std::filesystem::remove_all(dir);
  const VkFftBinaryCache a(dir, "plan a"), b(dir, "plan b");
  EXPECT_NE(a.path(), b.path());
  const std::vector<uint32_t> payload = {1, 2, 3, 4};
  ASSERT_TRUE(a.Save(payload.data(), payload.size() * 4).ok());
  std::string why;
  std::optional<std::vector<uint8_t>> got = a.Load(&why);
  ASSERT_TRUE(got.has_value()) << why;
  EXPECT_EQ(got->size(), 16u);
  EXPECT_FALSE(b.Load(&why).has_value());
  EXPECT_NE(why.find("no cache file"), std::string::npos);
  std::filesystem::copy_file(a.path(), b.path());  // a's file under b's name
  EXPECT_FALSE(b.Load(&why).has_value());
  EXPECT_NE(why.find("another plan"), std::string::npos) << why;
  std::ofstream(a.path(), std::ios::binary) << "garbage";
  EXPECT_FALSE(a.Load(&why).has_value());
  EXPECT_NE(why.find("not a dashi VkFFT cache file"), std::string::npos) << why;
}

}  // namespace
}  // namespace dashi::vk
