// Defect D(s): the number of edges {x, y} of the periodic grid graph with s(x)·s(y) = −1.
// The edge set is each cell's forward edges, counted with multiplicity (docs/MATH.md, "Defect"):
//   4-neighbourhood: (i, j)–(i, j+1) and (i, j)–(i+1, j);
//   8-neighbourhood: those plus (i, j)–(i+1, j+1) and (i, j)–(i+1, j−1), indices mod the grid.
#ifndef DASHI_CORE_REF_CARRIER_DEFECT_H_
#define DASHI_CORE_REF_CARRIER_DEFECT_H_

#include <cstdint>

#include "core_ref/carrier/carrier.h"

namespace dashi {

enum class Neighbourhood { kFour = 4, kEight = 8 };

int64_t Defect(const Carrier& s, Neighbourhood nbhd = Neighbourhood::kFour);

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_DEFECT_H_
