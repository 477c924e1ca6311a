#include "core_ref/fft/aligned_vector.h"

#include <complex>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace dashi {
namespace {

template <typename T>
bool OnCacheLine(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kCacheLineBytes == 0;
}

TEST(AlignedVectorTest, StorageStartsOnACacheLineWhateverTheSize) {
  // Sizes on both sides of glibc's mmap threshold (128 KiB), odd sizes, and the FFT scratch's
  // typical sizes; small blocks interleaved so that the heap's state varies between them.
  std::vector<std::vector<char>> clutter;
  for (std::size_t n : {1u, 3u, 8u, 1000u, 2048u, 16385u, 65536u, 131072u, 1u << 20}) {
    clutter.emplace_back(n % 61 + 1);
    AlignedVector<double> d(n);
    AlignedVector<std::complex<double>> c(n);
    EXPECT_TRUE(OnCacheLine(d.data())) << n;
    EXPECT_TRUE(OnCacheLine(c.data())) << n;
    d.resize(3 * n + 5);  // reallocation keeps the alignment
    EXPECT_TRUE(OnCacheLine(d.data())) << n;
  }
}

TEST(AlignedVectorTest, BehavesAsAVector) {
  AlignedVector<int> v = {1, 2, 3};
  v.push_back(4);
  AlignedVector<int> w(v.begin(), v.end());
  EXPECT_EQ(w, v);
  w.swap(v);
  EXPECT_EQ(v.size(), 4u);
  EXPECT_EQ(v[3], 4);
}

}  // namespace
}  // namespace dashi
