#include "core_ref/proxy/proxy_energy.h"

namespace dashi {

std::vector<double> EnergyWeights(const ProxySpec& spec) {
  std::vector<double> w;
  w.reserve(static_cast<size_t>(spec.dim()));
  for (const std::vector<Mode>* modes : {&spec.low_modes, &spec.anchors}) {
    for (const Mode& m : *modes) {
      const double k2 = static_cast<double>(m.kx * m.kx + m.ky * m.ky);
      w.push_back(1.0 / k2);
      w.push_back(1.0 / k2);
    }
  }
  w.push_back(0.0);
  w.push_back(0.0);
  return w;
}

double ProxyEnergy(std::span<const double> weights, std::span<const double> z) {
  double e = 0;
  for (size_t i = 0; i < z.size(); ++i) e += weights[i] * (z[i] * z[i]);
  return e;
}

double ProxyEnstrophy(std::span<const double> z) {
  double s = 0;
  for (double v : z) s += v * v;
  return s;
}

int64_t ModeShell(const Mode& m) {
  // round(|k|) = r ⇔ (2r − 1)² ≤ 4|k|² < (2r + 1)².
  const int64_t four_k2 = 4 * (m.kx * m.kx + m.ky * m.ky);
  int64_t r = 0;
  while ((2 * r + 1) * (2 * r + 1) <= four_k2) ++r;
  return r;
}

}  // namespace dashi
