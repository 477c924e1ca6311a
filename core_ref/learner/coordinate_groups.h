// Partitions of the D proxy coordinates into groups that share one real gain (docs/MATH.md §10):
//   scalar:   one group;
//   diagonal: one group per coordinate;
//   shell:    per integer radius round(|k|) of the low and anchor modes (both coordinates of all
//             modes of one radius), radii ascending; then z_mid and z_high, a group each.
// The homogeneous learners fit one gain per group; A = diag(gain of each coordinate's group).
#ifndef DASHI_CORE_REF_LEARNER_COORDINATE_GROUPS_H_
#define DASHI_CORE_REF_LEARNER_COORDINATE_GROUPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/proxy/proxy_encoder.h"

namespace dashi {

enum class GroupingKind { kScalar, kDiagonal, kShell };

struct CoordinateGroups {
  int64_t count = 0;
  std::vector<int64_t> group_of;  // per coordinate, 0 ≤ group < count
  std::vector<std::string> names; // per group: "all", "z[i]", "shell r", "z_mid", "z_high"
};

CoordinateGroups MakeCoordinateGroups(GroupingKind kind, const ProxySpec& spec);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_COORDINATE_GROUPS_H_
