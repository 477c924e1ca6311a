// Golden output hashes: the FFTs' bits are fixed by docs/MATH.md §FFT (twiddles, order of
// operations). The same hashes are checked by two builds of the library: fft_golden_test (the 2D
// passes multiversioned for AVX-512F / AVX2 / SSE2, the loader picks one for this CPU) and
// fft_golden_portable_test (built with DASHI_FFT_PORTABLE: baseline code only). Equal hashes show
// the vector width does not change a bit. A change of algorithm, twiddles or operation order
// changes the hashes; update them only together with MATH §FFT.
//
// Hash = BLAKE2b-128 of the output array's bytes (MATH §4). The inputs come from Xoshiro256**.
// The twiddles are core_ref/math's correctly rounded CosPi / SinPi: the same on every platform.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/blake2b/blake2b.h"
#include "core_ref/fft/fft.h"
#include "core_ref/fft/fft_test_inputs.h"
#include "core_ref/prng/prng.h"

namespace dashi {
namespace {

template <typename T>
std::string Hash(const std::vector<T>& v) {
  return ToHex(Blake2b128(v.data(), v.size() * sizeof(T)));
}

struct Case {
  const char* name;
  size_t rows, cols;  // rows = 0: a 1D transform of length cols
  const char* forward;  // complex forward
  const char* inverse;  // complex inverse
  const char* rfft;     // 2D only
  const char* irfft;    // 2D only
};

// fft_golden_v8_off_test / _on_test set DASHI_FFT_V8: the choice must have taken effect, or the
// hashes below would check the same path twice. A build without the vector paths never runs them.
TEST(FftGoldenTest, TheForcedPathIsTheOneThatRuns) {
  if (!FftVectorPathsCompiled()) {
    EXPECT_FALSE(FftUsesVectorPaths());
    return;
  }
  const char* env = std::getenv("DASHI_FFT_V8");
  if (env != nullptr && env[0] == '0') {
    EXPECT_FALSE(FftUsesVectorPaths());
  } else if (env != nullptr && env[0] != '\0') {
#if defined(__x86_64__)
    // On x86-64 the row passes' 8-lane paths are AVX-512F code: forced on only where they can run.
    __builtin_cpu_init();
    EXPECT_EQ(FftUsesVectorPaths(), __builtin_cpu_supports("avx512f") != 0);
#else
    EXPECT_TRUE(FftUsesVectorPaths());
#endif
  }  // else: the CPU's choice, either path
}

TEST(FftGoldenTest, OutputsHaveTheRecordedHashes) {
  const Case cases[] = {
      {"1d-1024", 0, 1024, "4aa55d4236655be268ebb75100b2c1cf", "23df92ee8c9bfc0b8097d9a5de5975d8",
       "", ""},
      {"1d-32768", 0, 32768, "1c6be672da8588d7e7931a9b53a07bdb",
       "fedfdf5c28855995e0d077d1c586136f", "", ""},
      {"2d-1x8", 1, 8, "83521a9390f0b60c8f0cf271c03893ed", "131e0b4c10568dd6e640211a7ad798eb",
       "423a152747dbda619412e628bbe7f396", "bae94326e22067fdd6eeb251e9c5b799"},
      {"2d-4x16", 4, 16, "9c6842802b096cb75c7576cd9d2dad6d", "419f601b8ab10d1c0de59e891f03b575",
       "3616effe7e49e1cb33f090aa502a8919", "cd1888b01e7f387781d579c985db3600"},
      {"2d-64x32", 64, 32, "a4b05843c17269184af59059ff390da4", "2263b0adee568c0517eefa710510d1c6",
       "d659153a757ea6735c64115d1c80e5bf", "4210c8184d82f7d87d4cfd3fe3820b8b"},
      {"2d-8x512", 8, 512, "77eba52c215d887808912e5bd3e2b246", "93cef81642fc558f79acd909999fddd7",
       "abb63008991a010d5b698db283beb445", "c48289a36c9d80c2c0e486ee4054eecd"},
      {"2d-256x256", 256, 256, "0ad48a46674a1f6e50919f2551f1f375",
       "8c239991a72c6d7ae2b3746e21bc35f0", "fcd28b8784bebbdf12cb0027f41bf317",
       "2fd042be23f51f0d50bc10ec0676d088"},
      // Recorded with the pre-transpose, unfused passes (main at c032c7a): odd log2 lengths
      // (the fused radix-2 + sub-length-2 pass) in rows and columns of full 8-lane blocks.
      {"2d-128x128", 128, 128, "dfeb06cc937cb5585d9a7a5680777ebc",
       "b2fed7d042d967e09345a92ab9c0a13e", "9501d22f4828117b7edcc656039647a4",
       "af16becc023b97a9faecbc556bb476e7"},
      {"2d-32x64", 32, 64, "51cbd80bb93b68d5d69e36a50d0b0010", "7771c5e319d9f02763a14e28ee95d4a7",
       "f564f4f78593d9c10e6668fb8ec3f3f1", "6fc46218c45acc73c7a7a5fbfeb5836b"},
  };
  for (const Case& c : cases) {
    const size_t n = (c.rows == 0 ? 1 : c.rows) * c.cols;
    const std::vector<Complex> x = RandomComplex(n, 77 + n);
    std::vector<Complex> f = x, b = x;
    std::string hr, hi;
    if (c.rows == 0) {
      auto fft = Fft1d::Create(c.cols);
      ASSERT_TRUE(fft.ok());
      fft->Forward(f);
      fft->Inverse(b);
    } else {
      auto fft = Fft2d::Create(c.rows, c.cols);
      ASSERT_TRUE(fft.ok());
      fft->Forward(f);
      fft->Inverse(b);
      const std::vector<Complex> half = fft->Rfft(RandomReal(n, 99 + n));
      hr = Hash(half);
      hi = Hash(fft->Irfft(RandomComplex(half.size(), 111 + n)));
      EXPECT_EQ(hr, c.rfft) << c.name << " rfft";
      EXPECT_EQ(hi, c.irfft) << c.name << " irfft";
    }
    const std::string hf = Hash(f), hb = Hash(b);
    std::printf("      {\"%s\", %zu, %zu, \"%s\", \"%s\", \"%s\", \"%s\"},\n", c.name, c.rows,
                c.cols, hf.c_str(), hb.c_str(), hr.c_str(), hi.c_str());
    EXPECT_EQ(hf, c.forward) << c.name << " forward";
    EXPECT_EQ(hb, c.inverse) << c.name << " inverse";
  }
}

}  // namespace
}  // namespace dashi
