#include "core_ref/learner/coordinate_groups.h"

#include <map>

#include "core_ref/proxy/proxy_energy.h"

namespace dashi {

CoordinateGroups MakeCoordinateGroups(GroupingKind kind, const ProxySpec& spec) {
  const int64_t dim = spec.dim();
  CoordinateGroups g;
  g.group_of.assign(static_cast<size_t>(dim), 0);
  switch (kind) {
    case GroupingKind::kScalar:
      g.count = 1;
      g.names = {"all"};
      return g;
    case GroupingKind::kDiagonal:
      g.count = dim;
      for (int64_t i = 0; i < dim; ++i) {
        g.group_of[i] = i;
        g.names.push_back("z[" + std::to_string(i) + "]");
      }
      return g;
    case GroupingKind::kShell:
      break;
  }
  // Shells: ordered by radius (std::map iterates keys ascending), then the two band scalars.
  std::vector<int64_t> shell_of_mode;
  for (const std::vector<Mode>* modes : {&spec.low_modes, &spec.anchors}) {
    for (const Mode& m : *modes) shell_of_mode.push_back(ModeShell(m));
  }
  std::map<int64_t, int64_t> index_of_shell;
  for (int64_t s : shell_of_mode) index_of_shell[s] = 0;
  for (auto& [shell, index] : index_of_shell) {
    index = g.count++;
    g.names.push_back("shell " + std::to_string(shell));
  }
  for (size_t m = 0; m < shell_of_mode.size(); ++m) {
    g.group_of[2 * m] = g.group_of[2 * m + 1] = index_of_shell[shell_of_mode[m]];
  }
  g.group_of[spec.mid_index()] = g.count++;
  g.names.push_back("z_mid");
  g.group_of[spec.high_index()] = g.count++;
  g.names.push_back("z_high");
  return g;
}

}  // namespace dashi
