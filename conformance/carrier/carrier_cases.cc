// Conformance cases of the device carrier kernels (accel_vulkan/carrier/carrier_ops.h) against
// core_ref/carrier (docs/MATH.md §1-2):
//   carrier.<op>.parity       random inputs over the sizes where bugs live (1×1, 1×n, n×1, w−1,
//                             w, w+1 and k·w+r for the workgroup size w, non-square grids), several
//                             radii (0, 1, 2, one larger than the grid) and η; tolerance 0.
//   carrier.dispatch.*        the same ops with a tiny workgroup and x-group cap (2-D dispatch).
//   carrier.closure.parity_3_steps_per_submission  the closure continued over submissions.
//   carrier.closure.parity_{multi_dispatch,shared_memory,fallback}  each closure path forced,
//                             or taken because the grid does not fit the shared memory allowed.
//   carrier.closure.parity_strips{,_one_row}  the strip-tiled closure steps forced, with strips
//                             of up to 8 rows, and of one row (4 words) for a small budget.
//   carrier.invariant.*       MATH §2 on the device's OWN outputs: mask property, defect
//                             monotonicity along the device closure levels, K_ann idempotence,
//                             closure fixed point, fusion tie rule.
//   carrier.golden.<grid>.*   the checked-in golden arrays (golden/carrier_*.npy).
// Every device output is checked for intact guard words (CarrierOps::CheckGuards) before it is
// compared. Seeds are printed in each case's detail.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/carrier/carrier_ops.h"
#include "accel_vulkan/carrier/closure_dispatch_plan.h"
#include "accel_vulkan/device_buffer.h"
#include "conformance/framework/conformance_case.h"
#include "conformance/framework/sweep_shapes.h"
#include "conformance/framework/golden_input.h"
#include "core_ref/carrier/annihilation.h"
#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/fusion.h"
#include "core_ref/carrier/majority.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/npy/npy.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::conformance {
namespace {

using vk::CarrierOps;
using vk::DeviceCarrier;
using vk::DeviceField;

constexpr uint32_t kW = 64;  // CarrierOps' default workgroup size, the one the sizes target

// ---- inputs -----------------------------------------------------------------------------------

// Random carriers and fields, and coherent blobs (closure runs several levels deep on these):
// core_ref/testing/random_inputs.h.
using testing::BlobCarrier;
using testing::RandomCarrier;
using testing::RandomField;

// The generated grid sweep (framework/sweep_shapes.h) for workgroup size w.
std::vector<GridShape> SweepShapes(uint32_t w) {
  std::vector<GridShape> shapes;
  for (const auto& [rows, cols] : GridSweepShapes(w)) shapes.push_back({rows, cols});
  return shapes;
}

std::string Describe(GridShape s) { return ToString(s); }

// " (where)" when a first difference was recorded, else "".
std::string At(const std::string& where) { return where.empty() ? "" : " (" + where + ")"; }

// Radii to try on a shape: 0, 1, 2 and one larger than the grid in both directions.
std::vector<int> Radii(GridShape s) {
  return {0, 1, 2, static_cast<int>(std::max(s.rows, s.cols)) + 3};
}

// ---- comparison helpers -------------------------------------------------------------------------

// Counts mismatches and remembers the first one.
struct Tally {
  int64_t mismatches = 0;
  int64_t comparisons = 0;
  std::string first;
  // `detail` (by reference) is read here, after a count argument that fills it was evaluated.
  void Note(int64_t count, const std::string& what, const std::string& detail = "") {
    ++comparisons;
    if (count > 0 && first.empty()) first = detail.empty() ? what : what + " " + detail;
    mismatches += count;
  }
  std::string Detail(const std::string& prefix) const {
    return prefix + "; " + std::to_string(comparisons) + " comparisons" +
           (first.empty() ? std::string() : "; first mismatch: " + first);
  }
};

int64_t CountMismatches(const Carrier& gpu, const Carrier& ref, std::string* where) {
  if (!(gpu.shape() == ref.shape())) {
    *where = "shape " + ToString(gpu.shape()) + " vs " + ToString(ref.shape());
    return std::max<int64_t>(1, ref.size());
  }
  int64_t n = 0;
  for (int64_t k = 0; k < ref.size(); ++k) {
    if (gpu.values()[k] != ref.values()[k]) {
      if (n == 0) {
        *where = "cell (" + std::to_string(k / ref.cols()) + ", " + std::to_string(k % ref.cols()) +
                 ") gpu " + std::to_string(gpu.values()[k]) + " ref " +
                 std::to_string(ref.values()[k]);
      }
      ++n;
    }
  }
  return n;
}

// max |gpu − ref| and the number of cells whose bit patterns differ.
struct FieldDiff {
  double max_abs = 0;
  int64_t bit_mismatches = 0;
  std::string first;
};
FieldDiff CompareFields(std::span<const double> gpu, std::span<const double> ref, int64_t cols) {
  FieldDiff d;
  if (gpu.size() != ref.size()) {
    d.max_abs = INFINITY;
    d.bit_mismatches = 1;
    d.first = "size " + std::to_string(gpu.size()) + " vs " + std::to_string(ref.size());
    return d;
  }
  for (size_t k = 0; k < ref.size(); ++k) {
    if (std::memcmp(&gpu[k], &ref[k], sizeof(double)) != 0) {
      if (d.bit_mismatches == 0) {
        char buf[160];
        std::snprintf(buf, sizeof(buf), "cell (%lld, %lld) gpu %.17g ref %.17g",
                      static_cast<long long>(k / cols), static_cast<long long>(k % cols), gpu[k],
                      ref[k]);
        d.first = buf;
      }
      ++d.bit_mismatches;
      d.max_abs = std::max(d.max_abs, std::fabs(gpu[k] - ref[k]));
    }
  }
  return d;
}

// The device output, after its guard words are checked.
StatusOr<Carrier> Fetch(CarrierOps& ops, const DeviceCarrier& c) {
  DASHI_RETURN_IF_ERROR(ops.CheckGuards(c));
  return ops.Download(c);
}
StatusOr<RealField> Fetch(CarrierOps& ops, const DeviceField& f) {
  DASHI_RETURN_IF_ERROR(ops.CheckGuards(f));
  return ops.Download(f);
}

// Mask property: out(x) ∈ {0, in(x)}. Returns the number of violating cells.
int64_t MaskViolations(const Carrier& in, const Carrier& out, std::string* where) {
  int64_t n = 0;
  for (int64_t k = 0; k < in.size(); ++k) {
    const int8_t o = out.values()[k];
    if (o != 0 && o != in.values()[k]) {
      if (n == 0) {
        *where = "cell " + std::to_string(k) + " in " + std::to_string(in.values()[k]) + " out " +
                 std::to_string(o);
      }
      ++n;
    }
  }
  return n;
}

// Closure results: cells of the fixed point, depth, flag and every level statistic (bit-exact).
int64_t CompareClosure(const Carrier& gpu_fp, const CarrierOps::DeviceClosure& gpu,
                       const ClosureResult& ref, std::string* where) {
  std::string w;
  int64_t n = CountMismatches(gpu_fp, ref.fixed_point, &w);
  if (n > 0) *where = "fixed point " + w;
  auto note = [&](bool bad, const std::string& what) {
    if (!bad) return;
    if (n == 0) *where = what;
    ++n;
  };
  note(gpu.depth != ref.depth,
       "depth gpu " + std::to_string(gpu.depth) + " ref " + std::to_string(ref.depth));
  note(gpu.reached_fixed_point != ref.reached_fixed_point, "reached_fixed_point differs");
  note(gpu.levels.size() != ref.levels.size(), "level count gpu " +
                                                   std::to_string(gpu.levels.size()) + " ref " +
                                                   std::to_string(ref.levels.size()));
  for (size_t l = 0; l < std::min(gpu.levels.size(), ref.levels.size()); ++l) {
    note(gpu.levels[l].active_cells != ref.levels[l].active_cells,
         "level " + std::to_string(l) + " active gpu " +
             std::to_string(gpu.levels[l].active_cells) + " ref " +
             std::to_string(ref.levels[l].active_cells));
    char buf[160];
    std::snprintf(buf, sizeof(buf), "level %zu mean_abs_field gpu %.17g ref %.17g", l,
                  gpu.levels[l].mean_abs_field, ref.levels[l].mean_abs_field);
    note(std::memcmp(&gpu.levels[l].mean_abs_field, &ref.levels[l].mean_abs_field, 8) != 0, buf);
  }
  return n;
}

// How the closure runs (CarrierOps::Options): the path plan and the shared memory it may use.
struct ClosurePath {
  vk::ClosurePlan plan = vk::ClosurePlan::kAuto;
  uint32_t max_shared_bytes = 0;  // 0: the device's
  uint32_t max_invocations = 0;   // the one-dispatch closure's workgroup; 0: the device's
};

StatusOr<std::unique_ptr<CarrierOps>> MakeOps(vk::VulkanContext& ctx, uint32_t w = kW,
                                              uint32_t max_groups_x = 65535,
                                              int closure_steps_per_submission = 8,
                                              ClosurePath path = {}) {
  CarrierOps::Options o;
  o.workgroup_size = w;
  o.max_groups_x = max_groups_x;
  o.closure_steps_per_submission = closure_steps_per_submission;
  o.closure_plan = path.plan;
  o.closure_max_shared_bytes = path.max_shared_bytes;
  o.closure_max_invocations = path.max_invocations;
  return CarrierOps::Create(ctx, o);
}

std::string SeedTag(uint64_t seed) { return "seed " + std::to_string(seed) + " (+ shape index)"; }

// ---- parity cases
// ---------------------------------------------------------------------------------

// PDA threshold on random fields with cells planted exactly at ±τ and one ulp either side.
CaseResult PdaParity(vk::VulkanContext& ctx, uint32_t w, uint32_t max_groups_x) {
  constexpr uint64_t kSeed = 1001;
  CASE_ASSIGN(auto ops, MakeOps(ctx, w, max_groups_x));
  Tally t;
  const std::vector<GridShape> shapes = SweepShapes(w);
  for (size_t si = 0; si < shapes.size(); ++si) {
    for (double tau : {0.3, 0.5, 1e-3, 0.999}) {
      const RealField base = RandomField(shapes[si], kSeed + si, 1.0);
      std::vector<double> v(base.values().begin(), base.values().end());
      const double planted[] = {tau,
                                -tau,
                                std::nextafter(tau, 0.0),
                                std::nextafter(-tau, 0.0),
                                std::nextafter(tau, 2.0),
                                std::nextafter(-tau, -2.0),
                                0.0,
                                -0.0};
      for (size_t k = 0; k < v.size(); k += 3) v[k] = planted[(k / 3) % 8];
      CASE_ASSIGN(RealField f, RealField::FromValues(shapes[si], std::move(v)));
      CASE_ASSIGN(DeviceField df, ops->Upload(f));
      CASE_ASSIGN(DeviceCarrier dc, ops->PdaThreshold(df, {tau}));
      CASE_ASSIGN(Carrier gpu, Fetch(*ops, dc));
      CASE_ASSIGN(Carrier ref, PdaThreshold(f, {tau}));
      std::string where;
      const int64_t n = CountMismatches(gpu, ref, &where);
      t.Note(n, Describe(shapes[si]) + " tau=" + std::to_string(tau) + " " + where);
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0, t.Detail(SeedTag(kSeed)));
}

// Annihilation and majority on random carriers (p(0) = 0.3 and a sparse 0.8), every radius.
CaseResult WindowParity(vk::VulkanContext& ctx, bool majority, uint32_t w, uint32_t max_groups_x) {
  const uint64_t seed = majority ? 2002 : 3003;
  CASE_ASSIGN(auto ops, MakeOps(ctx, w, max_groups_x));
  Tally t;
  const std::vector<GridShape> shapes = SweepShapes(w);
  for (size_t si = 0; si < shapes.size(); ++si) {
    for (double p_zero : {0.3, 0.8}) {
      const Carrier c = RandomCarrier(shapes[si], seed + si + (p_zero > 0.5 ? 500 : 0), p_zero);
      CASE_ASSIGN(DeviceCarrier dc, ops->Upload(c));
      for (int r : Radii(shapes[si])) {
        const std::vector<int> etas =
            majority ? std::vector<int>{-1, 1, 2, 5} : std::vector<int>{0};
        for (int eta : etas) {
          CASE_ASSIGN(Carrier ref, majority ? Majority(c, {r, eta}) : Annihilate(c, {r}));
          CASE_ASSIGN(DeviceCarrier out,
                      majority ? ops->Majority(dc, {r, eta}) : ops->Annihilate(dc, {r}));
          CASE_ASSIGN(Carrier gpu, Fetch(*ops, out));
          std::string where;
          const int64_t n = CountMismatches(gpu, ref, &where);
          t.Note(n, Describe(shapes[si]) + " p0=" + std::to_string(p_zero) +
                        " r=" + std::to_string(r) +
                        (majority ? " eta=" + std::to_string(eta) : "") + " " + where);
        }
      }
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0, t.Detail(SeedTag(seed)));
}

CaseResult ClosureStepParity(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 4004;
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  const std::vector<GridShape> shapes = SweepShapes(kW);
  for (size_t si = 0; si < shapes.size(); ++si) {
    const Carrier c = RandomCarrier(shapes[si], kSeed + si, 0.3);
    CASE_ASSIGN(DeviceCarrier dc, ops->Upload(c));
    const std::vector<int> radii = Radii(shapes[si]);
    for (int ra : {0, 1, radii.back()}) {
      for (int rm : {0, 1, 2}) {
        for (int eta : {1, 3}) {
          ClosureParams p;
          p.annihilation.radius = ra;
          p.majority = {rm, eta};
          CASE_ASSIGN(Carrier ref, ClosureStep(c, p));
          CASE_ASSIGN(DeviceCarrier out, ops->ClosureStep(dc, p));
          CASE_ASSIGN(Carrier gpu, Fetch(*ops, out));
          std::string where;
          t.Note(CountMismatches(gpu, ref, &where),
                 Describe(shapes[si]) + " r_ann=" + std::to_string(ra) +
                     " r_maj=" + std::to_string(rm) + " eta=" + std::to_string(eta),
                 where);
        }
      }
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0, t.Detail(SeedTag(kSeed)));
}

// The whole closure: fixed point, depth, flag and per-level statistics, with and without a field,
// and with caps that stop it early (0, 1, 2 iterations), on `shapes`. `steps_per_submission`
// closure steps are recorded per submission on the multi-dispatch path (CarrierClosure): 8 by
// default (steps past the fixed point skipped by the device), 3 to take the continuation path on
// every deeper closure. `path` picks the closure's path; `want` (when set) is the path every
// closure must take (a closure on another path counts as a mismatch).
CaseResult ClosureParity(vk::VulkanContext& ctx, int steps_per_submission, ClosurePath path,
                         const std::vector<GridShape>& shapes,
                         std::optional<vk::ClosureDispatch> want = std::nullopt) {
  constexpr uint64_t kSeed = 5005;
  CASE_ASSIGN(auto ops, MakeOps(ctx, kW, 65535, steps_per_submission, path));
  Tally t;
  int max_depth = 0;
  int64_t shared = 0, multi = 0, strips = 0;
  for (size_t si = 0; si < shapes.size(); ++si) {
    const GridShape s = shapes[si];
    const RealField field = RandomField(s, kSeed + 100 + si, 3.0);
    CASE_ASSIGN(DeviceField df, ops->Upload(field));
    const Carrier blob = BlobCarrier(s, kSeed + si, 0.25);
    const Carrier noise = RandomCarrier(s, kSeed + 200 + si, 0.2);
    for (const Carrier* c : {&blob, &noise}) {
      CASE_ASSIGN(DeviceCarrier dc, ops->Upload(*c));
      for (int cap : {64, 0, 1, 2}) {
        for (int eta : {2, 4}) {
          ClosureParams p;
          p.annihilation.radius = 1;
          p.majority = {1, eta};
          p.max_iterations = cap;
          const bool with_field = (cap + eta) % 2 == 0 || cap == 64;
          CASE_ASSIGN(ClosureResult ref, Closure(*c, with_field ? &field : nullptr, p));
          CASE_ASSIGN(CarrierOps::DeviceClosure gpu,
                      ops->Closure(dc, with_field ? &df : nullptr, p));
          CASE_ASSIGN(Carrier fp, Fetch(*ops, gpu.fixed_point));
          const std::string what = Describe(s) + (c == &blob ? " blob" : " noise") +
                                   " cap=" + std::to_string(cap) + " eta=" + std::to_string(eta);
          std::string where;
          t.Note(CompareClosure(fp, gpu, ref, &where), what, where);
          if (want.has_value()) {
            t.Note(gpu.dispatch != *want ? 1 : 0,
                   what + " ran on the " + vk::ClosureDispatchName(gpu.dispatch) + " path");
          }
          (gpu.dispatch == vk::ClosureDispatch::kSharedMemory
               ? shared
               : (gpu.dispatch == vk::ClosureDispatch::kStrips ? strips : multi)) += 1;
          max_depth = std::max(max_depth, ref.depth);
        }
      }
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0,
               t.Detail(SeedTag(kSeed) + "; deepest closure " + std::to_string(max_depth) + "; " +
                        std::to_string(shared) + " closures in one shared-memory dispatch, " +
                        std::to_string(strips) + " strip-tiled, " + std::to_string(multi) +
                        " multi-dispatch"));
}

// The shapes where the one-dispatch closure's bugs live: one row, one word per row, 2^k ± 1 rows,
// several words per row (its plan needs cols a multiple of 32), and the decoder's N = 128.
std::vector<GridShape> SharedClosureShapes() {
  return {{1, 32},  {2, 32},  {3, 64},  {15, 32}, {16, 96},
          {31, 32}, {32, 32}, {33, 64}, {65, 96}, {128, 128}};
}

// The shapes of SharedClosureShapes() that the automatic plan sends to the one-dispatch closure
// on this device (K_ann radius 1, majority (1, 2); its shared memory and workgroup limits).
std::vector<GridShape> SharedClosureShapesOnDevice(vk::VulkanContext& ctx) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx.physical_device(), &props);
  ClosureParams p;
  p.annihilation.radius = 1;
  p.majority = {1, 2};
  std::vector<GridShape> shapes;
  for (const GridShape s : SharedClosureShapes()) {
    const vk::ClosureDispatchPlan plan = vk::PlanClosureDispatch(
        s, p,
        {props.limits.maxComputeSharedMemorySize,
         std::min(props.limits.maxComputeWorkGroupInvocations,
                  props.limits.maxComputeWorkGroupSize[0])},
        vk::ClosurePlan::kAuto);
    if (plan.dispatch == vk::ClosureDispatch::kSharedMemory) shapes.push_back(s);
  }
  return shapes;
}

// The one-dispatch closure on every shape it takes; NOT_SUPPORTED where the device's shared
// memory or workgroup limits send none of them there.
CaseResult ClosureSharedMemoryParity(vk::VulkanContext& ctx) {
  const std::vector<GridShape> shapes = SharedClosureShapesOnDevice(ctx);
  if (shapes.empty()) {
    return NotSupported("no grid fits the device's shared memory for the one-dispatch closure");
  }
  return ClosureParity(ctx, 8, {}, shapes, vk::ClosureDispatch::kSharedMemory);
}

// The one-dispatch closure's bit-parallel majority (r_m = 1: window counts as bit planes, v·S ≥ η
// as a bit-plane comparison) over every margin η from below −9 (every cell kept) to above 9
// (none), on dense carriers (windows of 8 and 9 cells of one sign: the counts' high bits) and
// large blobs, with K_ann of radius 0 and 1, against core_ref; NOT_SUPPORTED as
// parity_shared_memory.
CaseResult ClosureSharedMemoryMargins(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 5105;
  const std::vector<GridShape> shapes = SharedClosureShapesOnDevice(ctx);
  if (shapes.empty()) {
    return NotSupported("no grid fits the device's shared memory for the one-dispatch closure");
  }
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  for (size_t si = 0; si < shapes.size(); ++si) {
    const GridShape s = shapes[si];
    const RealField field = RandomField(s, kSeed + 100 + si, 3.0);
    CASE_ASSIGN(DeviceField df, ops->Upload(field));
    const Carrier blob = BlobCarrier(s, kSeed + si, 0.05);
    const Carrier dense = RandomCarrier(s, kSeed + 200 + si, 0.05);
    for (const Carrier* c : {&blob, &dense}) {
      CASE_ASSIGN(DeviceCarrier dc, ops->Upload(*c));
      for (int eta : {-10, -9, -3, 0, 5, 7, 8, 9, 10}) {
        for (int r_ann : {0, 1}) {
          if (r_ann > s.rows) continue;
          ClosureParams p;
          p.annihilation.radius = r_ann;
          p.majority = {1, eta};
          p.max_iterations = 6;
          const bool with_field = (eta + r_ann) % 2 == 0;
          CASE_ASSIGN(ClosureResult ref, Closure(*c, with_field ? &field : nullptr, p));
          CASE_ASSIGN(CarrierOps::DeviceClosure gpu,
                      ops->Closure(dc, with_field ? &df : nullptr, p));
          CASE_ASSIGN(Carrier fp, Fetch(*ops, gpu.fixed_point));
          const std::string what = Describe(s) + (c == &blob ? " blob" : " dense") +
                                   " r_ann=" + std::to_string(r_ann) +
                                   " eta=" + std::to_string(eta);
          std::string where;
          t.Note(CompareClosure(fp, gpu, ref, &where), what, where);
          t.Note(gpu.dispatch != vk::ClosureDispatch::kSharedMemory ? 1 : 0,
                 what + " ran on the " + vk::ClosureDispatchName(gpu.dispatch) + " path");
        }
      }
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0, t.Detail(SeedTag(kSeed)));
}

// Fusion of k random channels (even k makes ties), via both entry points.
CaseResult FusionParity(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 6006;
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  const std::vector<GridShape> shapes = SweepShapes(kW);
  for (size_t si = 0; si < shapes.size(); ++si) {
    const GridShape s = shapes[si];
    for (int64_t k : {1, 2, 3, 4, 7}) {
      std::vector<int8_t> stack;
      std::vector<DeviceCarrier> chans;
      for (int64_t c = 0; c < k; ++c) {
        const Carrier ch = RandomCarrier(s, kSeed + 1000 * si + c, 0.25);
        stack.insert(stack.end(), ch.values().begin(), ch.values().end());
        CASE_ASSIGN(DeviceCarrier d, ops->Upload(ch));
        chans.push_back(std::move(d));
      }
      CASE_ASSIGN(Carrier ref, FuseMajority(stack, k, s));
      std::vector<const DeviceCarrier*> ptrs;
      for (const DeviceCarrier& d : chans) ptrs.push_back(&d);
      CASE_ASSIGN(DeviceCarrier out, ops->FuseMajority(ptrs));
      CASE_ASSIGN(Carrier gpu, Fetch(*ops, out));
      std::string where;
      t.Note(CountMismatches(gpu, ref, &where), Describe(s) + " k=" + std::to_string(k) + " (span)",
             where);
      const std::vector<int32_t> words(stack.begin(), stack.end());
      CASE_ASSIGN(vk::DeviceBuffer buf, vk::DeviceBuffer::Create(ctx, words.size() * 4));
      CASE_CHECK(buf.UploadValues<int32_t>(ctx, words));
      CASE_ASSIGN(DeviceCarrier out2, ops->FuseMajorityChannelMajor(buf, k, s));
      CASE_ASSIGN(Carrier gpu2, Fetch(*ops, out2));
      t.Note(CountMismatches(gpu2, ref, &where),
             Describe(s) + " k=" + std::to_string(k) + " (channel-major)", where);
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0, t.Detail(SeedTag(kSeed)));
}

CaseResult DefectParity(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 7007;
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  double total_abs = 0;
  const std::vector<GridShape> shapes = SweepShapes(kW);
  for (size_t si = 0; si < shapes.size(); ++si) {
    for (double p_zero : {0.0, 0.3, 0.9}) {
      const Carrier c = RandomCarrier(
          shapes[si], kSeed + si + (p_zero > 0 ? 100 : 0) + (p_zero > 0.5 ? 100 : 0), p_zero);
      CASE_ASSIGN(DeviceCarrier dc, ops->Upload(c));
      for (Neighbourhood nb : {Neighbourhood::kFour, Neighbourhood::kEight}) {
        CASE_ASSIGN(int64_t gpu, ops->Defect(dc, nb));
        const int64_t ref = Defect(c, nb);
        total_abs += std::fabs(static_cast<double>(gpu - ref));
        t.Note(gpu != ref ? 1 : 0, Describe(shapes[si]) + " p0=" + std::to_string(p_zero) + " D" +
                                       std::to_string(static_cast<int>(nb)) + " gpu " +
                                       std::to_string(gpu) + " ref " + std::to_string(ref));
      }
    }
  }
  return Judge(total_abs, 0, t.Detail(SeedTag(kSeed)));
}

CaseResult SmoothParity(vk::VulkanContext& ctx, uint32_t w, uint32_t max_groups_x) {
  constexpr uint64_t kSeed = 8008;
  CASE_ASSIGN(auto ops, MakeOps(ctx, w, max_groups_x));
  Tally t;
  double max_abs = 0;
  const std::vector<GridShape> shapes = SweepShapes(w);
  for (size_t si = 0; si < shapes.size(); ++si) {
    const RealField f = RandomField(shapes[si], kSeed + si, 7.5);
    CASE_ASSIGN(DeviceField df, ops->Upload(f));
    for (SmoothingKernel kern : {SmoothingKernel::kBox, SmoothingKernel::kTriangle}) {
      for (int r : Radii(shapes[si])) {
        CASE_ASSIGN(RealField ref, Smooth(f, {kern, r}));
        CASE_ASSIGN(DeviceField out, ops->Smooth(df, {kern, r}));
        CASE_ASSIGN(RealField gpu, Fetch(*ops, out));
        const FieldDiff d = CompareFields(gpu.values(), ref.values(), ref.cols());
        max_abs = std::max(max_abs, d.max_abs);
        t.Note(d.bit_mismatches, Describe(shapes[si]) +
                                     (kern == SmoothingKernel::kBox ? " box" : " triangle") +
                                     " r=" + std::to_string(r) + " " + d.first);
      }
    }
  }
  const std::string detail =
      t.Detail(SeedTag(kSeed)) + "; bit mismatches " + std::to_string(t.mismatches);
  if (t.mismatches > 0) return Fail(max_abs, detail);
  return Judge(max_abs, 0, detail);
}

CaseResult NormalizeParity(vk::VulkanContext& ctx, uint32_t w, uint32_t max_groups_x) {
  constexpr uint64_t kSeed = 9009;
  CASE_ASSIGN(auto ops, MakeOps(ctx, w, max_groups_x));
  Tally t;
  double max_abs = 0;
  const std::vector<GridShape> shapes = SweepShapes(w);
  for (size_t si = 0; si < shapes.size(); ++si) {
    for (int variant = 0; variant < 4; ++variant) {
      std::vector<double> v(static_cast<size_t>(shapes[si].size()), 0.0);
      if (variant == 1) {
        const RealField f = RandomField(shapes[si], kSeed + si, 3.7e5);
        v.assign(f.values().begin(), f.values().end());
      } else if (variant == 2) {  // a single non-zero cell, negative: the max is |min|
        v[v.size() / 2] = -0.3;
      } else if (variant == 3) {  // tiny values, and a -0.0
        const RealField f = RandomField(shapes[si], kSeed + 50 + si, 1e-200);
        v.assign(f.values().begin(), f.values().end());
        v[0] = -0.0;
      }  // variant 0: all zero, left unchanged
      CASE_ASSIGN(RealField f, RealField::FromValues(shapes[si], std::move(v)));
      const RealField ref = NormalizeByMaxAbs(f);
      CASE_ASSIGN(DeviceField df, ops->Upload(f));
      CASE_ASSIGN(DeviceField out, ops->NormalizeByMaxAbs(df));
      CASE_ASSIGN(RealField gpu, Fetch(*ops, out));
      const FieldDiff d = CompareFields(gpu.values(), ref.values(), ref.cols());
      max_abs = std::max(max_abs, d.max_abs);
      t.Note(d.bit_mismatches,
             Describe(shapes[si]) + " variant " + std::to_string(variant) + " " + d.first);
    }
  }
  const std::string detail =
      t.Detail(SeedTag(kSeed)) + "; bit mismatches " + std::to_string(t.mismatches);
  if (t.mismatches > 0) return Fail(max_abs, detail);
  return Judge(max_abs, 0, detail);
}

// The decoder's mask chain with the max folded into the smoothing (N ≤ 256): the normalised
// field (bits) and the carrier of PdaThreshold(NormalizeByMaxAbs(Smooth(f, triangle 2)), 0.35)
// against core_ref's, with the field's largest |value| (a spike of ±50, which stays the max after
// the smoothing) moved into every smoothing workgroup in turn — a fold that loses one workgroup's
// maximum gives another max there.
CaseResult FoldMaxParity(vk::VulkanContext& ctx, uint32_t w, uint32_t max_groups_x,
                         std::vector<GridShape> shapes) {
  constexpr uint64_t kSeed = 9109;
  CASE_ASSIGN(auto ops, MakeOps(ctx, w, max_groups_x));
  Tally t;
  double max_abs = 0;
  const SmoothingParams smoothing{SmoothingKernel::kTriangle, 2};
  const PdaThresholdParams tau{0.35};
  for (size_t si = 0; si < shapes.size(); ++si) {
    const RealField base = RandomField(shapes[si], kSeed + si, 1.0);
    const uint64_t cells = static_cast<uint64_t>(shapes[si].size());
    const uint64_t groups = (cells + w - 1) / w;
    for (uint64_t g = 0; g < groups; ++g) {
      std::vector<double> v(base.values().begin(), base.values().end());
      const uint64_t at = std::min(cells - 1, g * w + (g * 7 + 3) % w);
      v[at] = g % 2 == 0 ? 50.0 : -50.0;
      CASE_ASSIGN(RealField f, RealField::FromValues(shapes[si], std::move(v)));
      CASE_ASSIGN(RealField smoothed, Smooth(f, smoothing));
      const RealField ref = NormalizeByMaxAbs(smoothed);
      CASE_ASSIGN(Carrier ref_cells, PdaThreshold(ref, tau));
      CASE_ASSIGN(DeviceField df, ops->Upload(f));
      CASE_ASSIGN(CarrierOps::DeviceNormalisedMask m,
                  ops->SmoothNormalizeThresholdFolded(df, smoothing, tau));
      CASE_ASSIGN(RealField gpu, Fetch(*ops, m.normalised));
      CASE_ASSIGN(Carrier gpu_cells, Fetch(*ops, m.cells));
      const FieldDiff d = CompareFields(gpu.values(), ref.values(), ref.cols());
      max_abs = std::max(max_abs, d.max_abs);
      const std::string where = Describe(shapes[si]) + " spike in group " + std::to_string(g);
      t.Note(d.bit_mismatches, where + " " + d.first);
      std::string cell_where;
      t.Note(CountMismatches(gpu_cells, ref_cells, &cell_where), where, cell_where);
    }
  }
  const std::string detail =
      t.Detail(SeedTag(kSeed)) + "; mismatching field bits + cells " + std::to_string(t.mismatches);
  if (t.mismatches > 0) return Fail(max_abs, detail);
  return Judge(max_abs, 0, detail);
}

// ---- invariants on the device's own outputs ----------------------------------------------------

// Mask property (support non-creation, no flips) of K_ann, M, C and every closure level.
CaseResult MaskInvariant(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 10010;
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  const std::vector<GridShape> shapes = SweepShapes(kW);
  for (size_t si = 0; si < shapes.size(); ++si) {
    const Carrier c = RandomCarrier(shapes[si], kSeed + si, 0.3);
    CASE_ASSIGN(DeviceCarrier dc, ops->Upload(c));
    for (int r : {1, 2}) {
      ClosureParams p;
      p.annihilation.radius = r;
      p.majority = {r, 2};
      CASE_ASSIGN(DeviceCarrier a, ops->Annihilate(dc, {r}));
      CASE_ASSIGN(DeviceCarrier m, ops->Majority(dc, {r, 2}));
      CASE_ASSIGN(DeviceCarrier s1, ops->ClosureStep(dc, p));
      CASE_ASSIGN(CarrierOps::DeviceClosure cl, ops->Closure(dc, nullptr, p));
      const std::pair<const char*, const DeviceCarrier*> outs[] = {
          {"K_ann", &a}, {"M", &m}, {"C", &s1}, {"C*", &cl.fixed_point}};
      for (const auto& [name, out] : outs) {
        CASE_ASSIGN(Carrier o, Fetch(*ops, *out));
        std::string where;
        t.Note(MaskViolations(c, o, &where),
               Describe(shapes[si]) + " r=" + std::to_string(r) + " " + name, where);
      }
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0, t.Detail(SeedTag(kSeed)));
}

// Defect monotonicity along the device closure levels (D4 and D8 on the device, each level a
// device ClosureStep of the previous one, each a mask of it), the level count matching the device
// Closure's depth and its fixed point; D8(K_ann(s)) = 0 for r ≥ 1 (Prop. 5).
CaseResult DefectMonotoneInvariant(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 11011;
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  int64_t levels_checked = 0;
  const std::vector<GridShape> shapes = SweepShapes(kW);
  for (size_t si = 0; si < shapes.size(); ++si) {
    const GridShape s = shapes[si];
    const Carrier blob = BlobCarrier(s, kSeed + si, 0.2);
    const Carrier noise = RandomCarrier(s, kSeed + 300 + si, 0.2);
    for (const Carrier* c0 : {&blob, &noise}) {
      ClosureParams p;
      p.annihilation.radius = 1;
      p.majority = {1, 3};
      CASE_ASSIGN(DeviceCarrier cur, ops->Upload(*c0));
      CASE_ASSIGN(CarrierOps::DeviceClosure cl, ops->Closure(cur, nullptr, p));
      CASE_ASSIGN(Carrier fixed, Fetch(*ops, cl.fixed_point));
      CASE_ASSIGN(int64_t d4, ops->Defect(cur, Neighbourhood::kFour));
      CASE_ASSIGN(int64_t d8, ops->Defect(cur, Neighbourhood::kEight));
      Carrier prev = *c0;
      const std::string tag = Describe(s) + (c0 == &blob ? " blob" : " noise");
      for (int level = 1; level <= cl.depth; ++level) {
        CASE_ASSIGN(DeviceCarrier next, ops->ClosureStep(cur, p));
        CASE_ASSIGN(Carrier host_next, Fetch(*ops, next));
        std::string where;
        t.Note(MaskViolations(prev, host_next, &where),
               tag + " level " + std::to_string(level) + " not a mask:", where);
        CASE_ASSIGN(int64_t n4, ops->Defect(next, Neighbourhood::kFour));
        CASE_ASSIGN(int64_t n8, ops->Defect(next, Neighbourhood::kEight));
        t.Note(n4 > d4 ? 1 : 0, tag + " level " + std::to_string(level) + " D4 rose " +
                                    std::to_string(d4) + " -> " + std::to_string(n4));
        t.Note(n8 > d8 ? 1 : 0, tag + " level " + std::to_string(level) + " D8 rose " +
                                    std::to_string(d8) + " -> " + std::to_string(n8));
        // Every level ends with K_ann(r = 1): defect-free (Prop. 5).
        t.Note(n8 != 0 ? 1 : 0, tag + " level " + std::to_string(level) +
                                    " D8 = " + std::to_string(n8) + " after K_ann(1)");
        d4 = n4;
        d8 = n8;
        cur = std::move(next);
        prev = std::move(host_next);
        ++levels_checked;
      }
      std::string where;
      t.Note(CountMismatches(prev, fixed, &where),
             tag + " the depth-" + std::to_string(cl.depth) +
                 " iterate differs from the device Closure's fixed point:",
             where);
    }
    // Prop. 5 directly on K_ann outputs.
    CASE_ASSIGN(DeviceCarrier dn, ops->Upload(noise));
    for (int r : {1, 2}) {
      CASE_ASSIGN(DeviceCarrier a, ops->Annihilate(dn, {r}));
      CASE_ASSIGN(int64_t a8, ops->Defect(a, Neighbourhood::kEight));
      t.Note(a8 != 0 ? 1 : 0,
             Describe(s) + " D8(K_ann(r=" + std::to_string(r) + ")) = " + std::to_string(a8));
    }
  }
  return Judge(
      static_cast<double>(t.mismatches), 0,
      t.Detail(SeedTag(kSeed) + "; " + std::to_string(levels_checked) + " closure levels walked"));
}

// K_ann(K_ann(s)) = K_ann(s), both applications on the device.
CaseResult AnnihilateIdempotentInvariant(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 12012;
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  const std::vector<GridShape> shapes = SweepShapes(kW);
  for (size_t si = 0; si < shapes.size(); ++si) {
    const Carrier c = RandomCarrier(shapes[si], kSeed + si, 0.5);
    CASE_ASSIGN(DeviceCarrier dc, ops->Upload(c));
    for (int r : Radii(shapes[si])) {
      CASE_ASSIGN(DeviceCarrier once, ops->Annihilate(dc, {r}));
      CASE_ASSIGN(DeviceCarrier twice, ops->Annihilate(once, {r}));
      CASE_ASSIGN(Carrier a1, Fetch(*ops, once));
      CASE_ASSIGN(Carrier a2, Fetch(*ops, twice));
      std::string where;
      t.Note(CountMismatches(a2, a1, &where), Describe(shapes[si]) + " r=" + std::to_string(r),
             where);
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0, t.Detail(SeedTag(kSeed)));
}

// A device ClosureStep of the device Closure's fixed point leaves it unchanged (when reached);
// when a cap stopped it, reached_fixed_point says whether one more step changes it.
CaseResult ClosureFixedPointInvariant(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 13013;
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  int reached = 0, capped = 0;
  const std::vector<GridShape> shapes = SweepShapes(kW);
  for (size_t si = 0; si < shapes.size(); ++si) {
    const Carrier c = BlobCarrier(shapes[si], kSeed + si, 0.2);
    CASE_ASSIGN(DeviceCarrier dc, ops->Upload(c));
    for (int cap : {64, 1}) {
      for (int r : {1, 2}) {
        ClosureParams p;
        p.annihilation.radius = r;
        p.majority = {r, r == 1 ? 3 : 8};
        p.max_iterations = cap;
        CASE_ASSIGN(CarrierOps::DeviceClosure cl, ops->Closure(dc, nullptr, p));
        CASE_ASSIGN(DeviceCarrier again, ops->ClosureStep(cl.fixed_point, p));
        CASE_ASSIGN(Carrier fp, Fetch(*ops, cl.fixed_point));
        CASE_ASSIGN(Carrier step, Fetch(*ops, again));
        std::string where;
        const int64_t changed = CountMismatches(step, fp, &where);
        (cl.reached_fixed_point ? reached : capped) += 1;
        const bool bad = cl.reached_fixed_point ? changed != 0 : changed == 0;
        t.Note(bad ? std::max<int64_t>(changed, 1) : 0,
               Describe(shapes[si]) + " cap=" + std::to_string(cap) + " r=" + std::to_string(r) +
                   " reached=" + std::to_string(cl.reached_fixed_point) + " changed " +
                   std::to_string(changed) + " " + where);
      }
    }
  }
  return Judge(static_cast<double>(t.mismatches), 0,
               t.Detail(SeedTag(kSeed) + "; " + std::to_string(reached) + " reached, " +
                        std::to_string(capped) + " stopped by the cap"));
}

// Fusion tie rule and symmetry on the device: opposite pairs cancel to 0, a sum of 0 is 0,
// fuse(−s) = −fuse(s), fuse(s, s, ..., s) = s.
CaseResult FusionTieInvariant(vk::VulkanContext& ctx) {
  constexpr uint64_t kSeed = 14014;
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  Tally t;
  const std::vector<GridShape> shapes = SweepShapes(kW);
  auto negate = [](const Carrier& c) {
    std::vector<int8_t> v(c.values().begin(), c.values().end());
    for (int8_t& x : v) x = static_cast<int8_t>(-x);
    return *Carrier::FromValues(c.shape(), std::move(v));
  };
  for (size_t si = 0; si < shapes.size(); ++si) {
    const GridShape s = shapes[si];
    const Carrier a = RandomCarrier(s, kSeed + si, 0.2);
    const Carrier b = RandomCarrier(s, kSeed + 100 + si, 0.2);
    const Carrier c = RandomCarrier(s, kSeed + 200 + si, 0.2);
    CASE_ASSIGN(Carrier zeros, Carrier::Zeros(s));
    CASE_ASSIGN(DeviceCarrier da, ops->Upload(a));
    CASE_ASSIGN(DeviceCarrier dna, ops->Upload(negate(a)));
    CASE_ASSIGN(DeviceCarrier db, ops->Upload(b));
    CASE_ASSIGN(DeviceCarrier dnb, ops->Upload(negate(b)));
    CASE_ASSIGN(DeviceCarrier dc, ops->Upload(c));
    CASE_ASSIGN(DeviceCarrier dnc, ops->Upload(negate(c)));
    // (a, −a) and (a, b, −a, −b): every cell ties.
    const DeviceCarrier* pair[] = {&da, &dna};
    const DeviceCarrier* quad[] = {&da, &db, &dna, &dnb};
    for (auto chans : {std::span<const DeviceCarrier* const>(pair),
                       std::span<const DeviceCarrier* const>(quad)}) {
      CASE_ASSIGN(DeviceCarrier out, ops->FuseMajority(chans));
      CASE_ASSIGN(Carrier got, Fetch(*ops, out));
      std::string where;
      t.Note(CountMismatches(got, zeros, &where),
             Describe(s) + " k=" + std::to_string(chans.size()) + " all-tie", where);
    }
    // fuse(−a, −b, −c) = −fuse(a, b, c), both on the device.
    const DeviceCarrier* pos[] = {&da, &db, &dc};
    const DeviceCarrier* neg[] = {&dna, &dnb, &dnc};
    CASE_ASSIGN(DeviceCarrier fp, ops->FuseMajority(pos));
    CASE_ASSIGN(DeviceCarrier fn, ops->FuseMajority(neg));
    CASE_ASSIGN(Carrier hp, Fetch(*ops, fp));
    CASE_ASSIGN(Carrier hn, Fetch(*ops, fn));
    std::string where;
    t.Note(CountMismatches(negate(hn), hp, &where), Describe(s) + " sign symmetry", where);
    // (a, a, a) = a; and the device tie rule cell by cell on (a, b): 0 exactly where a + b = 0.
    const DeviceCarrier* same[] = {&da, &da, &da};
    CASE_ASSIGN(DeviceCarrier fs, ops->FuseMajority(same));
    CASE_ASSIGN(Carrier hs, Fetch(*ops, fs));
    t.Note(CountMismatches(hs, a, &where), Describe(s) + " (a, a, a)", where);
    const DeviceCarrier* ab[] = {&da, &db};
    CASE_ASSIGN(DeviceCarrier fab, ops->FuseMajority(ab));
    CASE_ASSIGN(Carrier hab, Fetch(*ops, fab));
    int64_t bad = 0;
    for (int64_t k = 0; k < s.size(); ++k) {
      const int sum = a.values()[k] + b.values()[k];
      const int want = (sum > 0) - (sum < 0);
      bad += hab.values()[k] != want;
    }
    t.Note(bad, Describe(s) + " (a, b) sign rule");
  }
  return Judge(static_cast<double>(t.mismatches), 0, t.Detail(SeedTag(kSeed)));
}

// ---- golden data
// ---------------------------------------------------------------------------------

StatusOr<Carrier> GoldenCarrier(const std::string& name, GridShape shape) {
  DASHI_ASSIGN_OR_RETURN(NpyArray a, ReadGolden(name));
  if (a.shape != std::vector<int64_t>{shape.rows, shape.cols}) {
    return InvalidArgumentError("golden " + name + " has shape " + NpyShapeString(a.shape));
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<int8_t> v, a.As<int8_t>());
  return Carrier::FromValues(shape, std::move(v));
}

StatusOr<RealField> GoldenField(const std::string& name, GridShape shape) {
  DASHI_ASSIGN_OR_RETURN(NpyArray a, ReadGolden(name));
  if (a.shape != std::vector<int64_t>{shape.rows, shape.cols}) {
    return InvalidArgumentError("golden " + name + " has shape " + NpyShapeString(a.shape));
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<double> v, a.As<double>());
  return RealField::FromValues(shape, std::move(v));
}

// Smoothing (box, triangle r=2) of the golden field, and the device chain
// PdaThreshold(NormalizeByMaxAbs(Smooth(field, triangle, 2)), 0.3).
CaseResult GoldenSmoothPda(vk::VulkanContext& ctx, const std::string& tag, GridShape shape) {
  const std::string p = "carrier_" + tag + "_";
  CASE_ASSIGN(RealField field, GoldenField(p + "field", shape));
  CASE_ASSIGN(RealField box, GoldenField(p + "smooth_box_r2", shape));
  CASE_ASSIGN(RealField tri, GoldenField(p + "smooth_triangle_r2", shape));
  CASE_ASSIGN(Carrier pda, GoldenCarrier(p + "pda_tau0.3", shape));
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  CASE_ASSIGN(DeviceField df, ops->Upload(field));
  CASE_ASSIGN(DeviceField dbox, ops->Smooth(df, {SmoothingKernel::kBox, 2}));
  CASE_ASSIGN(DeviceField dtri, ops->Smooth(df, {SmoothingKernel::kTriangle, 2}));
  CASE_ASSIGN(DeviceField dnorm, ops->NormalizeByMaxAbs(dtri));
  CASE_ASSIGN(DeviceCarrier dpda, ops->PdaThreshold(dnorm, {0.3}));
  CASE_ASSIGN(RealField gbox, Fetch(*ops, dbox));
  CASE_ASSIGN(RealField gtri, Fetch(*ops, dtri));
  CASE_ASSIGN(RealField gnorm, Fetch(*ops, dnorm));
  CASE_ASSIGN(Carrier gpda, Fetch(*ops, dpda));
  const FieldDiff d1 = CompareFields(gbox.values(), box.values(), shape.cols);
  const FieldDiff d2 = CompareFields(gtri.values(), tri.values(), shape.cols);
  const FieldDiff d3 = CompareFields(gnorm.values(), NormalizeByMaxAbs(tri).values(), shape.cols);
  std::string where;
  const int64_t cells = CountMismatches(gpda, pda, &where);
  const double max_abs = std::max({d1.max_abs, d2.max_abs, d3.max_abs});
  const std::string detail = "box bit mismatches " + std::to_string(d1.bit_mismatches) +
                             At(d1.first) + "; triangle " + std::to_string(d2.bit_mismatches) +
                             At(d2.first) + "; normalised " + std::to_string(d3.bit_mismatches) +
                             At(d3.first) + "; pda_tau0.3 mismatching cells " +
                             std::to_string(cells) + At(where);
  if (d1.bit_mismatches + d2.bit_mismatches + d3.bit_mismatches + cells > 0) {
    return Fail(std::max(max_abs, static_cast<double>(cells)), detail);
  }
  return Judge(max_abs, 0, detail);
}

CaseResult GoldenWindow(vk::VulkanContext& ctx, const std::string& tag, GridShape shape) {
  const std::string p = "carrier_" + tag + "_";
  CASE_ASSIGN(Carrier random, GoldenCarrier(p + "random", shape));
  CASE_ASSIGN(Carrier ann, GoldenCarrier(p + "annihilate_r1", shape));
  CASE_ASSIGN(Carrier maj, GoldenCarrier(p + "majority_r1_eta2", shape));
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  CASE_ASSIGN(DeviceCarrier dr, ops->Upload(random));
  CASE_ASSIGN(DeviceCarrier da, ops->Annihilate(dr, {1}));
  CASE_ASSIGN(DeviceCarrier dm, ops->Majority(dr, {1, 2}));
  CASE_ASSIGN(Carrier ga, Fetch(*ops, da));
  CASE_ASSIGN(Carrier gm, Fetch(*ops, dm));
  std::string wa, wm;
  const int64_t na = CountMismatches(ga, ann, &wa);
  const int64_t nm = CountMismatches(gm, maj, &wm);
  return Judge(static_cast<double>(na + nm), 0,
               "annihilate_r1 mismatches " + std::to_string(na) + At(wa) +
                   "; majority_r1_eta2 mismatches " + std::to_string(nm) + At(wm));
}

CaseResult GoldenClosure(vk::VulkanContext& ctx, const std::string& tag, GridShape shape) {
  const std::string p = "carrier_" + tag + "_";
  CASE_ASSIGN(Carrier s0, GoldenCarrier(p + "pda_tau0.3", shape));
  CASE_ASSIGN(RealField tri, GoldenField(p + "smooth_triangle_r2", shape));
  CASE_ASSIGN(Carrier want_fp, GoldenCarrier(p + "closure_fixed_point", shape));
  CASE_ASSIGN(NpyArray active_npy, ReadGolden(p + "closure_active_cells"));
  CASE_ASSIGN(NpyArray mean_npy, ReadGolden(p + "closure_mean_abs_field"));
  CASE_ASSIGN(std::vector<int64_t> want_active, active_npy.As<int64_t>());
  CASE_ASSIGN(std::vector<double> want_mean, mean_npy.As<double>());
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  CASE_ASSIGN(DeviceCarrier ds0, ops->Upload(s0));
  CASE_ASSIGN(DeviceField dtri, ops->Upload(tri));
  CASE_ASSIGN(DeviceField dnorm, ops->NormalizeByMaxAbs(dtri));
  ClosureParams cp;
  cp.annihilation.radius = 1;
  cp.majority = {1, 3};
  CASE_ASSIGN(CarrierOps::DeviceClosure cl, ops->Closure(ds0, &dnorm, cp));
  CASE_ASSIGN(Carrier fp, Fetch(*ops, cl.fixed_point));
  std::string where;
  int64_t n = CountMismatches(fp, want_fp, &where);
  std::string detail = "fixed point mismatches " + std::to_string(n) + At(where);
  if (cl.levels.size() != want_active.size() || cl.levels.size() != want_mean.size()) {
    ++n;
    detail += "; level count gpu " + std::to_string(cl.levels.size()) + " golden " +
              std::to_string(want_active.size());
  } else {
    for (size_t l = 0; l < cl.levels.size(); ++l) {
      if (cl.levels[l].active_cells != want_active[l] ||
          std::memcmp(&cl.levels[l].mean_abs_field, &want_mean[l], 8) != 0) {
        ++n;
        char buf[200];
        std::snprintf(buf, sizeof(buf), "; level %zu gpu (%lld, %.17g) golden (%lld, %.17g)", l,
                      static_cast<long long>(cl.levels[l].active_cells),
                      cl.levels[l].mean_abs_field, static_cast<long long>(want_active[l]),
                      want_mean[l]);
        detail += buf;
      }
    }
  }
  if (cl.depth + 1 != static_cast<int>(want_active.size()) || !cl.reached_fixed_point) {
    ++n;
    detail += "; depth " + std::to_string(cl.depth) + " reached " +
              std::to_string(cl.reached_fixed_point);
  }
  detail += "; depth " + std::to_string(cl.depth) + ", " + std::to_string(cl.levels.size()) +
            " levels (active cells and mean |field| bit-exact)";
  return Judge(static_cast<double>(n), 0, detail);
}

CaseResult GoldenFusionDefects(vk::VulkanContext& ctx, const std::string& tag, GridShape shape) {
  const std::string p = "carrier_" + tag + "_";
  CASE_ASSIGN(NpyArray input, ReadGolden(p + "fusion_input"));
  CASE_ASSIGN(std::vector<int8_t> stack, input.As<int8_t>());
  CASE_ASSIGN(Carrier want, GoldenCarrier(p + "fusion", shape));
  CASE_ASSIGN(Carrier random, GoldenCarrier(p + "random", shape));
  CASE_ASSIGN(NpyArray defects_npy, ReadGolden(p + "defects"));
  CASE_ASSIGN(std::vector<int64_t> want_d, defects_npy.As<int64_t>());
  if (input.shape.size() != 3 || input.shape[1] != shape.rows || input.shape[2] != shape.cols ||
      want_d.size() != 4) {
    return Fail(NAN, "golden fusion_input / defects have unexpected shapes");
  }
  const int64_t k = input.shape[0];
  CASE_ASSIGN(auto ops, MakeOps(ctx));
  const std::vector<int32_t> words(stack.begin(), stack.end());
  CASE_ASSIGN(vk::DeviceBuffer buf, vk::DeviceBuffer::Create(ctx, words.size() * 4));
  CASE_CHECK(buf.UploadValues<int32_t>(ctx, words));
  CASE_ASSIGN(DeviceCarrier fused, ops->FuseMajorityChannelMajor(buf, k, shape));
  CASE_ASSIGN(Carrier got, Fetch(*ops, fused));
  std::string where;
  int64_t n = CountMismatches(got, want, &where);
  std::string detail = "fusion (k=" + std::to_string(k) + ") mismatches " + std::to_string(n) +
                       At(where) + "; defects gpu/golden";
  CASE_ASSIGN(DeviceCarrier dr, ops->Upload(random));
  CASE_ASSIGN(DeviceCarrier da, ops->Annihilate(dr, {1}));
  const DeviceCarrier* subjects[] = {&dr, &dr, &da, &da};
  const Neighbourhood nbs[] = {Neighbourhood::kFour, Neighbourhood::kEight, Neighbourhood::kFour,
                               Neighbourhood::kEight};
  for (int q = 0; q < 4; ++q) {
    CASE_ASSIGN(int64_t d, ops->Defect(*subjects[q], nbs[q]));
    n += d != want_d[q];
    detail += " " + std::to_string(d) + "/" + std::to_string(want_d[q]);
  }
  return Judge(static_cast<double>(n), 0, detail);
}

// ---- registration -------------------------------------------------------------------------------

constexpr char kCells[] = "mismatching cells vs core_ref (tolerance 0)";
constexpr char kFp64[] =
    "max |gpu - ref| over cells, bit patterns compared (tolerance 0: bit-exact, same order)";

DASHI_CONFORMANCE_CASE("carrier.pda.parity", "carrier.pda", kCells, 0.0,
                       [](vk::VulkanContext& ctx) { return PdaParity(ctx, kW, 65535); });
DASHI_CONFORMANCE_CASE("carrier.annihilate.parity", "carrier.annihilate", kCells, 0.0,
                       [](vk::VulkanContext& ctx) { return WindowParity(ctx, false, kW, 65535); });
DASHI_CONFORMANCE_CASE("carrier.majority.parity", "carrier.majority", kCells, 0.0,
                       [](vk::VulkanContext& ctx) { return WindowParity(ctx, true, kW, 65535); });
DASHI_CONFORMANCE_CASE("carrier.closure_step.parity", "carrier.closure_step", kCells, 0.0,
                       ClosureStepParity);
DASHI_CONFORMANCE_CASE("carrier.closure.parity", "carrier.closure",
                       "mismatching fixed-point cells + depth/flag/level-count differences + "
                       "level stats not bit-identical (active cells, mean |field|) (tolerance 0)",
                       0.0, [](vk::VulkanContext& ctx) {
                         return ClosureParity(ctx, 8, {}, SweepShapes(kW));
                       });
DASHI_CONFORMANCE_CASE("carrier.closure.parity_3_steps_per_submission", "carrier.closure",
                       "as carrier.closure.parity, on the multi-dispatch path recorded 3 steps "
                       "per submission (tolerance 0)",
                       0.0, [](vk::VulkanContext& ctx) {
                         return ClosureParity(ctx, 3, {vk::ClosurePlan::kMultiDispatch, 0},
                                              SweepShapes(kW), vk::ClosureDispatch::kMultiDispatch);
                       });
DASHI_CONFORMANCE_CASE("carrier.closure.parity_multi_dispatch", "carrier.closure",
                       "as carrier.closure.parity, every closure on the multi-dispatch path "
                       "(tolerance 0)",
                       0.0, [](vk::VulkanContext& ctx) {
                         return ClosureParity(ctx, 8, {vk::ClosurePlan::kMultiDispatch, 0},
                                              SweepShapes(kW), vk::ClosureDispatch::kMultiDispatch);
                       });
DASHI_CONFORMANCE_CASE("carrier.closure.parity_shared_memory", "carrier.closure",
                       "as carrier.closure.parity on the grids the one-dispatch closure takes, "
                       "+ closures that did not run in one shared-memory dispatch (tolerance 0)",
                       0.0, ClosureSharedMemoryParity);
DASHI_CONFORMANCE_CASE("carrier.closure.parity_shared_memory_margins", "carrier.closure",
                       "as carrier.closure.parity_shared_memory over margins eta -10..10 on dense "
                       "and blob carriers, K_ann radius 0 and 1 (tolerance 0)",
                       0.0, ClosureSharedMemoryMargins);
DASHI_CONFORMANCE_CASE("carrier.closure.parity_shared_memory_wide_words", "carrier.closure",
                       "as carrier.closure.parity_shared_memory with a 32-invocation workgroup: "
                       "an invocation holds several words, so the row sums read the field "
                       "each step instead of holding it in registers (tolerance 0)",
                       0.0, [](vk::VulkanContext& ctx) {
                         return ClosureParity(ctx, 8, {vk::ClosurePlan::kAuto, 0, 32},
                                              {{16, 96}, {33, 64}, {65, 96}, {128, 128}},
                                              vk::ClosureDispatch::kSharedMemory);
                       });
DASHI_CONFORMANCE_CASE("carrier.closure.parity_fallback", "carrier.closure",
                       "as carrier.closure.parity on the same grids with 1 KiB of shared memory "
                       "allowed: the larger grids fall back to the strip-tiled or the "
                       "multi-dispatch path (tolerance 0)",
                       0.0, [](vk::VulkanContext& ctx) {
                         return ClosureParity(ctx, 8, {vk::ClosurePlan::kAuto, 1024},
                                              SharedClosureShapes());
                       });
DASHI_CONFORMANCE_CASE("carrier.closure.parity_strips", "carrier.closure",
                       "as carrier.closure.parity on the grids of parity_shared_memory, every "
                       "closure on the strip-tiled path (strips of up to 8 rows; 3 steps per "
                       "submission) (tolerance 0)",
                       0.0, [](vk::VulkanContext& ctx) {
                         return ClosureParity(ctx, 3, {vk::ClosurePlan::kStrips, 0},
                                              SharedClosureShapes(), vk::ClosureDispatch::kStrips);
                       });
DASHI_CONFORMANCE_CASE("carrier.closure.parity_strips_one_row", "carrier.closure",
                       "as carrier.closure.parity_strips with the shared memory of a one-row "
                       "strip of 4 words: strips of 1 to 8 rows by width (tolerance 0)",
                       0.0, [](vk::VulkanContext& ctx) {
                         return ClosureParity(
                             ctx, 8,
                             {vk::ClosurePlan::kStrips,
                              static_cast<uint32_t>(vk::StripClosureBytes(1, 4, 1, 1))},
                             SharedClosureShapes(), vk::ClosureDispatch::kStrips);
                       });
DASHI_CONFORMANCE_CASE("carrier.fuse.parity", "carrier.fuse", kCells, 0.0, FusionParity);
DASHI_CONFORMANCE_CASE("carrier.defect.parity", "carrier.defect",
                       "sum of |D_gpu - D_ref| over grids, 4- and 8-neighbourhood (tolerance 0)",
                       0.0, DefectParity);
DASHI_CONFORMANCE_CASE("carrier.smooth.parity", "carrier.smooth", kFp64, 0.0,
                       [](vk::VulkanContext& ctx) { return SmoothParity(ctx, kW, 65535); });
DASHI_CONFORMANCE_CASE("carrier.normalize.parity", "carrier.normalize", kFp64, 0.0,
                       [](vk::VulkanContext& ctx) { return NormalizeParity(ctx, kW, 65535); });
DASHI_CONFORMANCE_CASE(
    "carrier.normalize.fold_max_every_group", "carrier.normalize",
    "max |gpu - ref| of the normalised field, smoothing with the max folded in, the spike in "
    "every workgroup; field bits and threshold cells must all match (tolerance 0)",
    0.0, [](vk::VulkanContext& ctx) {
      return FoldMaxParity(ctx, kW, 65535, {{32, 32}, {20, 30}, {128, 128}});
    });

// Workgroup size 5 with at most 2 groups along x: sizes around w = 5 and the 2-D dispatch path.
DASHI_CONFORMANCE_CASE("carrier.dispatch.w5.pda", "carrier.pda", kCells, 0.0,
                       [](vk::VulkanContext& ctx) { return PdaParity(ctx, 5, 2); });
DASHI_CONFORMANCE_CASE("carrier.dispatch.w5.annihilate", "carrier.annihilate", kCells, 0.0,
                       [](vk::VulkanContext& ctx) { return WindowParity(ctx, false, 5, 2); });
DASHI_CONFORMANCE_CASE("carrier.dispatch.w5.majority", "carrier.majority", kCells, 0.0,
                       [](vk::VulkanContext& ctx) { return WindowParity(ctx, true, 5, 2); });
DASHI_CONFORMANCE_CASE("carrier.dispatch.w5.smooth", "carrier.smooth", kFp64, 0.0,
                       [](vk::VulkanContext& ctx) { return SmoothParity(ctx, 5, 2); });
DASHI_CONFORMANCE_CASE(
    "carrier.dispatch.w5.fold_max", "carrier.normalize",
    "as carrier.normalize.fold_max_every_group with workgroups of 5, at most 2 along x "
    "(tolerance 0)",
    0.0, [](vk::VulkanContext& ctx) { return FoldMaxParity(ctx, 5, 2, {{12, 12}, {7, 9}}); });
DASHI_CONFORMANCE_CASE("carrier.dispatch.w5.normalize", "carrier.normalize", kFp64, 0.0,
                       [](vk::VulkanContext& ctx) { return NormalizeParity(ctx, 5, 2); });

DASHI_CONFORMANCE_CASE("carrier.invariant.mask", "carrier.closure",
                       "cells of device K_ann/M/C/C* outputs outside {0, input} (tolerance 0)", 0.0,
                       MaskInvariant);
DASHI_CONFORMANCE_CASE("carrier.invariant.defect_monotone", "carrier.closure",
                       "device closure levels with a rising D4/D8, not a mask, D8 != 0 after "
                       "K_ann(r>=1), or not ending at the device fixed point (tolerance 0)",
                       0.0, DefectMonotoneInvariant);
DASHI_CONFORMANCE_CASE("carrier.invariant.annihilate_idempotent", "carrier.annihilate",
                       "cells where device K_ann(K_ann(s)) != K_ann(s) (tolerance 0)", 0.0,
                       AnnihilateIdempotentInvariant);
DASHI_CONFORMANCE_CASE("carrier.invariant.closure_fixed_point", "carrier.closure",
                       "cells changed by a device ClosureStep of the device fixed point (or a "
                       "capped iterate that one step would not change) (tolerance 0)",
                       0.0, ClosureFixedPointInvariant);
DASHI_CONFORMANCE_CASE("carrier.invariant.fusion_ties", "carrier.fuse",
                       "cells violating the tie rule / sign symmetry / idempotence of device "
                       "fusion (tolerance 0)",
                       0.0, FusionTieInvariant);

// The golden grids: four cases each (registered in a loop, so not through the one-per-line macro).
const bool kGoldenCasesRegistered = [] {
  struct Grid {
    const char* tag;
    GridShape shape;
  };
  for (const Grid g : {Grid{"32", {32, 32}}, Grid{"48x64", {48, 64}}}) {
    const std::string tag = g.tag;
    const GridShape shape = g.shape;
    const std::string name = "carrier.golden." + tag + ".";
    RegisterCase(
        {name + "smooth_pda", "carrier.smooth",
         "max |gpu - golden| of smooth box/triangle r2 and the normalised field (bit "
         "patterns compared) + pda_tau0.3 mismatching cells (tolerance 0)",
         0.0, [tag, shape](vk::VulkanContext& ctx) { return GoldenSmoothPda(ctx, tag, shape); }});
    RegisterCase({name + "annihilate_majority", "carrier.annihilate",
                  "mismatching cells vs golden annihilate_r1 + majority_r1_eta2 (tolerance 0)", 0.0,
                  [tag, shape](vk::VulkanContext& ctx) { return GoldenWindow(ctx, tag, shape); }});
    RegisterCase({name + "closure", "carrier.closure",
                  "mismatching fixed-point cells + closure levels whose active cells or mean "
                  "|field| are not bit-identical to golden (tolerance 0)",
                  0.0,
                  [tag, shape](vk::VulkanContext& ctx) { return GoldenClosure(ctx, tag, shape); }});
    RegisterCase({name + "fusion_defects", "carrier.fuse",
                  "mismatching fusion cells + defect counts (D4, D8 of random and of its "
                  "device K_ann(1)) != golden (tolerance 0)",
                  0.0, [tag, shape](vk::VulkanContext& ctx) {
                    return GoldenFusionDefects(ctx, tag, shape);
                  }});
  }
  return true;
}();

}  // namespace
}  // namespace dashi::conformance
