// std::vector whose storage starts on a 64-byte (cache-line) boundary.
//
// The 2D FFT passes move data in 64-byte rows of 8 doubles (one AVX-512 register). With
// std::vector's default alignment (16 bytes from glibc's malloc, for large blocks a page plus 16
// bytes) every such load or store straddles two cache lines; the passes then ran 10–70 % slower
// at 64²–1024² on an Intel Xeon host and 15–30 % at 256²–512² on an AMD EPYC one
// (docs/PERF.md). Arrays that the FFT works on — its own scratch, the LES's work arrays — use
// this type; the bits never depend on it (alignment only changes how many cache lines an access
// touches).
//
//   AlignedVector<double> v(n);          // v.data() % 64 == 0 (when n > 0)
#ifndef DASHI_CORE_REF_FFT_ALIGNED_VECTOR_H_
#define DASHI_CORE_REF_FFT_ALIGNED_VECTOR_H_

#include <cstddef>
#include <new>
#include <vector>

namespace dashi {

inline constexpr std::size_t kCacheLineBytes = 64;

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}  // NOLINT: allocator rebinding
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kCacheLineBytes}));
  }
  void deallocate(T* p, std::size_t) noexcept {
    ::operator delete(p, std::align_val_t{kCacheLineBytes});
  }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept {
    return true;
  }
};

template <typename T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace dashi

#endif  // DASHI_CORE_REF_FFT_ALIGNED_VECTOR_H_
