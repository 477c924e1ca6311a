#include "core_ref/scales/filament_trace.h"

#include <map>
#include <utility>

namespace dashi {

Components LabelComponents(const Carrier& s) {
  const int64_t rows = s.rows(), cols = s.cols();
  Components c;
  c.label.assign(static_cast<size_t>(s.size()), -1);
  std::vector<int64_t> stack;
  const std::span<const int8_t> v = s.values();
  for (int64_t start = 0; start < s.size(); ++start) {
    if (v[start] == 0 || c.label[start] >= 0) continue;
    const int32_t id = static_cast<int32_t>(c.sign.size());
    const int8_t sgn = v[start];
    int64_t count = 0;
    c.label[start] = id;
    stack.assign(1, start);
    while (!stack.empty()) {
      const int64_t k = stack.back();
      stack.pop_back();
      ++count;
      const int64_t i = k / cols, j = k % cols;
      const int64_t nb[4] = {WrapIndex(i - 1, rows) * cols + j, WrapIndex(i + 1, rows) * cols + j,
                             i * cols + WrapIndex(j - 1, cols), i * cols + WrapIndex(j + 1, cols)};
      for (int64_t q : nb) {
        if (v[q] == sgn && c.label[q] < 0) {
          c.label[q] = id;
          stack.push_back(q);
        }
      }
    }
    c.sign.push_back(sgn);
    c.size.push_back(count);
  }
  return c;
}

const char* FilamentFateName(FilamentFate fate) {
  switch (fate) {
    case FilamentFate::kAlive: return "alive";
    case FilamentFate::kMerged: return "merged";
    case FilamentFate::kAnnihilated: return "annihilated";
    case FilamentFate::kSignFlip: return "sign_flip";
    case FilamentFate::kBelowThreshold: return "below_threshold";
  }
  return "unknown";
}

namespace {

// Why each component of `lab` would have no continuation in the next layer (one pass over the
// cells; only the components that do die read their entry).
std::vector<FilamentFate> FatesOf(const Components& lab, const Carrier& next_closed,
                                  const Carrier& next_initial) {
  const size_t n = lab.sign.size();
  std::vector<uint8_t> same_closed(n, 0), same_initial(n, 0), opposite(n, 0);
  const std::span<const int8_t> c = next_closed.values(), i0 = next_initial.values();
  for (size_t k = 0; k < lab.label.size(); ++k) {
    const int32_t b = lab.label[k];
    if (b < 0) continue;
    const int8_t sgn = lab.sign[b];
    same_closed[b] |= c[k] == sgn;
    same_initial[b] |= i0[k] == sgn;
    opposite[b] |= i0[k] == -sgn;
  }
  std::vector<FilamentFate> fates(n);
  for (size_t b = 0; b < n; ++b) {
    fates[b] = same_closed[b]    ? FilamentFate::kMerged
               : same_initial[b] ? FilamentFate::kAnnihilated
               : opposite[b]     ? FilamentFate::kSignFlip
                                 : FilamentFate::kBelowThreshold;
  }
  return fates;
}

}  // namespace

FilamentTrace TraceFilaments(const ScaleTower& tower) {
  const int layers = static_cast<int>(tower.closed.size());
  FilamentTrace tr;
  tr.components.assign(layers, 0);
  tr.born.assign(layers, 0);
  tr.died.assign(layers, 0);
  tr.alive_from_layer0.assign(layers, 0);
  if (layers == 0) return tr;

  Components prev = LabelComponents(tower.closed[0]);
  std::vector<int64_t> filament_of(prev.sign.size());  // component of the current layer → filament
  for (size_t c = 0; c < prev.sign.size(); ++c) {
    filament_of[c] = static_cast<int64_t>(tr.filaments.size());
    tr.filaments.push_back({prev.sign[c], 0, layers, prev.size[c], FilamentFate::kAlive});
  }
  tr.components[0] = static_cast<int64_t>(prev.sign.size());
  tr.born[0] = tr.components[0];

  for (int l = 1; l < layers; ++l) {
    Components cur = LabelComponents(tower.closed[l]);
    const size_t n_cur = cur.sign.size();
    // Overlap of each current component with the same-sign components of the previous layer.
    std::vector<std::map<int32_t, int64_t>> overlap(n_cur);
    for (size_t k = 0; k < cur.label.size(); ++k) {
      const int32_t a = cur.label[k], b = prev.label[k];
      if (a >= 0 && b >= 0 && cur.sign[a] == prev.sign[b]) ++overlap[a][b];
    }
    std::vector<int32_t> parent(n_cur, -1);
    std::vector<int64_t> parent_overlap(n_cur, 0);
    for (size_t a = 0; a < n_cur; ++a) {
      for (const auto& [b, count] : overlap[a]) {  // increasing label: ties keep the lowest
        if (count > parent_overlap[a]) {
          parent[a] = b;
          parent_overlap[a] = count;
        }
      }
    }
    // The heir of each previous component: its child with the largest overlap (lowest label).
    std::vector<int32_t> heir(prev.sign.size(), -1);
    std::vector<int64_t> heir_overlap(prev.sign.size(), 0);
    for (size_t a = 0; a < n_cur; ++a) {
      if (parent[a] < 0) continue;
      if (parent_overlap[a] > heir_overlap[parent[a]]) {
        heir[parent[a]] = static_cast<int32_t>(a);
        heir_overlap[parent[a]] = parent_overlap[a];
      }
    }
    const std::vector<FilamentFate> fates = FatesOf(prev, tower.closed[l], tower.initial[l]);
    std::vector<int64_t> next_filament(n_cur, -1);
    for (size_t b = 0; b < prev.sign.size(); ++b) {
      Filament& f = tr.filaments[filament_of[b]];
      if (heir[b] >= 0) {
        next_filament[heir[b]] = filament_of[b];
      } else {
        f.death_layer = l;
        f.fate = fates[b];
        ++tr.died[l];
      }
    }
    for (size_t a = 0; a < n_cur; ++a) {
      if (next_filament[a] >= 0) continue;
      next_filament[a] = static_cast<int64_t>(tr.filaments.size());
      tr.filaments.push_back({cur.sign[a], l, layers, cur.size[a], FilamentFate::kAlive});
      ++tr.born[l];
    }
    tr.components[l] = static_cast<int64_t>(n_cur);
    prev = std::move(cur);
    filament_of = std::move(next_filament);
  }
  for (const Filament& f : tr.filaments) {
    if (f.birth_layer != 0) continue;
    for (int l = 0; l < f.death_layer; ++l) ++tr.alive_from_layer0[l];
  }
  return tr;
}

}  // namespace dashi
