#include "core_ref/carrier/defect.h"

namespace dashi {

int64_t Defect(const Carrier& s, Neighbourhood nbhd) {
  struct Offset { int64_t di, dj; };
  static constexpr Offset kFour[] = {{0, 1}, {1, 0}};
  static constexpr Offset kEight[] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  const bool eight = nbhd == Neighbourhood::kEight;
  const Offset* offsets = eight ? kEight : kFour;
  const int n_offsets = eight ? 4 : 2;
  int64_t d = 0;
  for (int64_t i = 0; i < s.rows(); ++i) {
    for (int64_t j = 0; j < s.cols(); ++j) {
      const int v = s.at(i, j);
      if (v == 0) continue;
      for (int o = 0; o < n_offsets; ++o) {
        d += (v * s.AtWrapped(i + offsets[o].di, j + offsets[o].dj) == -1);
      }
    }
  }
  return d;
}

}  // namespace dashi
