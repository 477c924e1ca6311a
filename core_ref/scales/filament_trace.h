// The annihilation trace across the scale tower (docs/MATH.md §12): filaments are the connected
// same-sign components of each layer's closed carrier s*_ℓ (periodic, 4-neighbourhood), followed
// from layer to layer by overlap. Every filament has a birth layer, a sign, a death layer and the
// reason it died, so "if a structure dies, we know why".
//
//   StatusOr<FilamentTrace> tr = TraceFilaments(tower);
//   tr->alive_from_layer0;   // the survival curve of the filaments of layer 0
#ifndef DASHI_CORE_REF_SCALES_FILAMENT_TRACE_H_
#define DASHI_CORE_REF_SCALES_FILAMENT_TRACE_H_

#include <cstdint>
#include <vector>

#include "core_ref/carrier/carrier.h"
#include "core_ref/scales/scale_tower.h"

namespace dashi {

// Connected same-sign components of a carrier, periodic, 4-neighbourhood. Labels 0, 1, ... are
// given in the row-major order of each component's first cell; unsupported cells get −1.
struct Components {
  std::vector<int32_t> label;           // per cell
  std::vector<int8_t> sign;             // per component
  std::vector<int64_t> size;            // per component
};
Components LabelComponents(const Carrier& s);

enum class FilamentFate {
  kAlive,           // still present at the top layer
  kMerged,          // its cells continue, but in a component that follows another filament
  kAnnihilated,     // same-sign support in the next layer's s_0 there, removed by the closure
  kSignFlip,        // the next layer has only opposite-sign support on its cells
  kBelowThreshold,  // the next layer's band is below τ on every one of its cells
};
const char* FilamentFateName(FilamentFate fate);

struct Filament {
  int8_t sign = 1;
  int birth_layer = 0;
  int death_layer = 0;    // first layer where it is absent (L when alive at the top)
  int64_t birth_cells = 0;
  FilamentFate fate = FilamentFate::kAlive;
};

struct FilamentTrace {
  std::vector<Filament> filaments;          // in order of birth (layer, then label)
  std::vector<int64_t> components;          // per layer: components of s*_ℓ
  std::vector<int64_t> born;                // per layer: filaments born there
  std::vector<int64_t> died;                // per layer: filaments whose death_layer is ℓ
  std::vector<int64_t> alive_from_layer0;   // per layer: filaments born at 0 still alive at ℓ
};

// Follows every component of layer ℓ+1 to the same-sign component of layer ℓ it overlaps most
// (ties: the lowest label); of the components that follow one filament, the one with the largest
// overlap (ties: lowest label) continues it and the others are born as new filaments.
FilamentTrace TraceFilaments(const ScaleTower& tower);

}  // namespace dashi

#endif  // DASHI_CORE_REF_SCALES_FILAMENT_TRACE_H_
