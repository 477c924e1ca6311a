// Shared by the closure tests (carrier_closure_shared_test, carrier_closure_strip_test): closure
// parameters with a printable description, the structured edge carriers, and the comparison of a
// device closure with core_ref's, bit for bit.
#ifndef DASHI_ACCEL_VULKAN_CARRIER_CLOSURE_TEST_INPUTS_H_
#define DASHI_ACCEL_VULKAN_CARRIER_CLOSURE_TEST_INPUTS_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/carrier/carrier_ops.h"
#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/closure.h"

namespace dashi::vk::closure_test {

inline ClosureParams Params(int r_ann, int r_maj, int eta, int cap) {
  ClosureParams p;
  p.annihilation.radius = r_ann;
  p.majority = {r_maj, eta};
  p.max_iterations = cap;
  return p;
}

inline std::string Describe(const ClosureParams& p) {
  return "r_ann " + std::to_string(p.annihilation.radius) + " r_maj " +
         std::to_string(p.majority.radius) + " eta " + std::to_string(p.majority.eta) + " cap " +
         std::to_string(p.max_iterations);
}

// kind 0: empty support, 1: full support of one sign, 2: checkerboard, 3: two half planes,
// else stripes.
inline Carrier Pattern(GridShape s, int kind) {
  std::vector<int8_t> v(static_cast<size_t>(s.size()));
  for (int64_t i = 0; i < s.rows; ++i) {
    for (int64_t j = 0; j < s.cols; ++j) {
      int8_t x = 0;
      switch (kind) {
        case 0: x = 0; break;
        case 1: x = 1; break;
        case 2: x = ((i + j) % 2 == 0) ? 1 : -1; break;
        case 3: x = (j < s.cols / 2) ? 1 : -1; break;
        default: x = (i % 3 == 0 && j % 5 != 4) ? -1 : 0;
      }
      v[static_cast<size_t>(i * s.cols + j)] = x;
    }
  }
  return *Carrier::FromValues(s, std::move(v));
}

// Runs `c` through `ops` and compares with core_ref (fixed point, depth, flag, every level's
// active cells and the bits of its mean |field|); returns the path that ran, `on_error` when
// either side failed.
inline ClosureDispatch ExpectSameAsReference(CarrierOps& ops, const Carrier& c,
                                             const RealField* field, const ClosureParams& p,
                                             ClosureDispatch on_error) {
  SCOPED_TRACE(Describe(p) + (field != nullptr ? " with field" : " without field"));
  StatusOr<ClosureResult> ref = Closure(c, field, p);
  EXPECT_TRUE(ref.ok()) << ref.status().ToString();
  auto dc = ops.Upload(c);
  EXPECT_TRUE(dc.ok());
  std::optional<DeviceField> df;
  if (field != nullptr) {
    auto f = ops.Upload(*field);
    EXPECT_TRUE(f.ok());
    df.emplace(std::move(f).value());
  }
  auto got = ops.Closure(*dc, df.has_value() ? &*df : nullptr, p);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!ref.ok() || !got.ok()) return on_error;
  EXPECT_EQ(got->depth, ref->depth);
  EXPECT_EQ(got->reached_fixed_point, ref->reached_fixed_point);
  auto fp = ops.Download(got->fixed_point);
  EXPECT_TRUE(fp.ok());
  EXPECT_TRUE(*fp == ref->fixed_point) << "fixed point differs";
  EXPECT_TRUE(ops.CheckGuards(got->fixed_point).ok());
  EXPECT_EQ(got->levels.size(), ref->levels.size());
  for (size_t l = 0; l < std::min(got->levels.size(), ref->levels.size()); ++l) {
    EXPECT_EQ(got->levels[l].active_cells, ref->levels[l].active_cells) << "level " << l;
    EXPECT_EQ(std::memcmp(&got->levels[l].mean_abs_field, &ref->levels[l].mean_abs_field, 8), 0)
        << "level " << l << " mean " << got->levels[l].mean_abs_field << " vs "
        << ref->levels[l].mean_abs_field;
  }
  return got->dispatch;
}

}  // namespace dashi::vk::closure_test

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CLOSURE_TEST_INPUTS_H_
