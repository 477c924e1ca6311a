// The backend seam: the reference always opens; a Vulkan device (lavapipe in CI, with the
// validation layer) passes the certification gate only when certified or explicitly allowed, and
// then rolls out bit for bit like the reference. A missing device FAILS these tests.
#include "backend/backend.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backend/rollout_audit.h"
#include "core_ref/scales/layer_compare.h"
#include "core_ref/scales/scale_tower.h"
#include "core_ref/prng/prng.h"

namespace dashi::backend {
namespace {

constexpr int64_t kDim = 40;
constexpr uint64_t kSeed = 77;

std::vector<double> RandomA() {
  Xoshiro256ss rng(kSeed);
  std::vector<double> a(kDim * kDim);
  for (double& x : a) x = (2 * rng.NextDouble() - 1) * 0.15;
  return a;
}

std::vector<double> Z0() {
  std::vector<double> z(kDim);
  for (int64_t i = 0; i < kDim; ++i) z[i] = 0.05 * static_cast<double>(i + 1);
  return z;
}

// An empty certification store of this test's own, so nothing on the machine certifies lavapipe.
std::string EmptyStore(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(t != nullptr ? t : "/tmp") + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(BackendTest, ReferenceOpensAndRollsOutLikeCoreRef) {
  StatusOr<Backend> b = Backend::Open({.name = "ref"}, "test");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_FALSE(b->on_device());
  EXPECT_EQ(b->Provenance()["backend_used"], "ref");
  EXPECT_FALSE(b->PipelineHooks().rollout_batch);
  EXPECT_TRUE(b->CheckValidation().ok());
  const std::vector<double> a = RandomA(), z0 = Z0();
  StatusOr<PreparedRollout> r = b->PrepareRollout(kDim, a);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  StatusOr<RolloutResult> got = r->Run(z0, {.steps = 30, .hash_every = 7});
  StatusOr<RolloutResult> want = Rollout(z0, a, {.steps = 30, .hash_every = 7});
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_EQ(got->chain, want->chain);
  EXPECT_TRUE(r->DeviceTimingJson().empty());
}

TEST(BackendTest, UnknownNamesAndOptionsAreRejectedBeforeAnyDeviceIsTouched) {
  StatusOr<Backend> cuda = Backend::Open({.name = "cuda"}, "test");
  ASSERT_FALSE(cuda.ok());
  EXPECT_EQ(cuda.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(cuda.status().message().find("'cuda'"), std::string::npos);
  BackendOptions o{.name = "vulkan"};
  o.vulkan.decode_precision = "fp16";
  EXPECT_EQ(Backend::Open(o, "test").status().code(), StatusCode::kInvalidArgument);
  o.vulkan.decode_precision = "fp64";
  o.vulkan.rollout_kernel = "magic";
  EXPECT_EQ(Backend::Open(o, "test").status().code(), StatusCode::kInvalidArgument);
}

TEST(BackendTest, UncertifiedDeviceIsRefusedUnlessAllowed) {
  BackendOptions o{.name = "vulkan"};
  o.vulkan.cert_store = EmptyStore("store_refuse");
  o.vulkan.validation = true;
  StatusOr<Backend> refused = Backend::Open(o, "dashi test");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition)
      << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("Certify it with `dashi conform --device"),
            std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("--allow-uncertified to dashi test"),
            std::string::npos);
}

// Issue 13 #2: --backend-policy permissive runs on the reference when the requested device cannot
// run, and says so in the provenance; strict (the default) is an error; wrong options stay errors.
TEST(BackendTest, PermissivePolicyDowngradesToTheReferenceAndRecordsIt) {
  BackendOptions o{.name = "vulkan"};
  o.vulkan.device = "no-such-device-anywhere";
  StatusOr<Backend> strict = Backend::Open(o, "dashi test");
  ASSERT_FALSE(strict.ok());
  o.policy = "permissive";
  StatusOr<Backend> b = Backend::Open(o, "dashi test");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_FALSE(b->on_device());
  EXPECT_EQ(b->name(), "ref");
  EXPECT_NE(b->downgrade().find("backend vulkan -> ref: NOT_FOUND"), std::string::npos)
      << b->downgrade();
  const nlohmann::json p = b->Provenance();
  EXPECT_EQ(p["backend_requested"], "vulkan");
  EXPECT_EQ(p["backend_used"], "ref");
  ASSERT_TRUE(p.contains("perf_flags"));
  EXPECT_EQ(p["perf_flags"][0], b->downgrade());
  o.vulkan.decode_precision = "fp16";  // an option error is never downgraded
  EXPECT_EQ(Backend::Open(o, "dashi test").status().code(), StatusCode::kInvalidArgument);
  o.vulkan.decode_precision = "fp64";
  o.policy = "lenient";
  EXPECT_EQ(Backend::Open(o, "dashi test").status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(Backend::Open({.name = "ref"}, "dashi test")->Provenance().contains("perf_flags"));
}

// The device seam end to end on lavapipe: allowed though uncertified (and said so), its rollout's
// chain equals the reference's, and an audit of the two finds nothing.
TEST(BackendTest, AllowedDeviceRollsOutBitForBitAndSaysItIsUncertified) {
  BackendOptions o{.name = "vulkan"};
  o.vulkan.cert_store = EmptyStore("store_allow");
  o.vulkan.allow_uncertified = true;
  o.vulkan.validation = true;
  StatusOr<Backend> dev = Backend::Open(o, "dashi test");
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  StatusOr<Backend> ref = Backend::Open({.name = "ref"}, "dashi test");
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(dev->on_device());
  const std::vector<double> a = RandomA(), z0 = Z0();
  StatusOr<PreparedRollout> dr = dev->PrepareRollout(kDim, a);
  StatusOr<PreparedRollout> rr = ref->PrepareRollout(kDim, a);
  ASSERT_TRUE(dr.ok() && rr.ok()) << dr.status().ToString();
  StatusOr<RolloutResult> d = dr->Run(z0, {.steps = 25, .hash_every = 5});
  StatusOr<RolloutResult> r = rr->Run(z0, {.steps = 25, .hash_every = 5});
  ASSERT_TRUE(d.ok() && r.ok()) << d.status().ToString();
  EXPECT_EQ(d->chain, r->chain);
  EXPECT_TRUE(dr->DeviceTimingJson().contains("device_ms"));
  StatusOr<AuditResult> audit = AuditPreparedRollouts(z0, 25, 5, *rr, *dr);
  ASSERT_TRUE(audit.ok()) << audit.status().ToString();
  EXPECT_TRUE(audit->chains_equal);
  const nlohmann::json p = dev->Provenance();
  EXPECT_EQ(p["backend_used"], "vulkan");
  EXPECT_EQ(p["certification"], "uncertified");
  EXPECT_EQ(p["allow_uncertified"], true);
  EXPECT_TRUE(p.contains("rollout_kernel_used"));
  EXPECT_TRUE(p.contains("compiler"));
  const Status v = dev->CheckValidation();
  EXPECT_TRUE(v.ok()) << v.ToString();
}

// N = 32: train seed 1, validation seed 5, eval seeds 2 and 3 (90 steps), 2 snapshots.
PipelineParams SmallPipeline() {
  PipelineParams p;
  p.les.n = 32;
  p.les.dt = 0.01;
  p.les.k_peak = 3;
  p.train_seeds = {1};
  p.val_seeds = {5};
  p.eval_seeds = {2, 3};
  p.train_start = 10;
  p.eval_start = 10;
  p.train_steps = 80;
  p.eval_steps = 90;
  p.sample_every = 2;
  p.k_lo = 4;
  p.k_mid = 8;
  p.anchors = 8;
  p.hash_every = 7;
  p.snapshots = 2;
  return p;
}

// The pipeline on the device's hooks: the same chains and evaluation as on the reference; the eval
// rollout keeps its hot loop on the device (the observed states come back in bulk, far fewer
// submissions than steps), the set-up is timed apart, and each snapshot's decode report is kept.
TEST(BackendTest, PipelineHooksKeepTheRolloutOnTheDeviceAndReportIt) {
  BackendOptions o{.name = "vulkan"};
  o.vulkan.cert_store = EmptyStore("store_pipeline");
  o.vulkan.allow_uncertified = true;
  o.vulkan.validation = true;
  StatusOr<Backend> dev = Backend::Open(o, "dashi test");
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  PipelineParams p = SmallPipeline();
  const nlohmann::json opened = dev->Provenance();
  StatusOr<PipelineResult> on_dev = RunPipeline(p, {}, dev->PipelineHooks());
  ASSERT_TRUE(on_dev.ok()) << on_dev.status().ToString();
  // prepare opened the device again (ReopenVulkanDevice): the same device, timed in the set-up.
  EXPECT_EQ(dev->Provenance()["device"], opened["device"]);
  EXPECT_EQ(dev->Provenance()["driver"], opened["driver"]);
  StatusOr<PipelineResult> on_ref = RunPipeline(p);
  ASSERT_TRUE(on_ref.ok()) << on_ref.status().ToString();
  ASSERT_EQ(on_dev->eval.size(), 2u);
  for (size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(on_dev->eval[e].chain, on_ref->eval[e].chain) << "trajectory " << e;
    EXPECT_EQ(on_dev->eval[e].z_rollout, on_ref->eval[e].z_rollout) << "trajectory " << e;
  }
  EXPECT_GT(on_dev->timings.setup_ms, 0.0);
  EXPECT_EQ(on_ref->timings.setup_ms, 0.0);
  const nlohmann::json d = dev->PipelineDeviceJson();
  EXPECT_EQ(d["gpu_hotloop_active"], true) << d.dump();
  ASSERT_TRUE(d.contains("setup_device_reopen_ms")) << d.dump();
  EXPECT_GT(d["setup_device_reopen_ms"].get<double>(), 0.0);
  EXPECT_LT(d["setup_device_reopen_ms"].get<double>(), on_dev->timings.setup_ms);
  EXPECT_EQ(d["rollout"]["steps"], 90);
  EXPECT_EQ(d["rollout"]["batch"], 2);
  EXPECT_EQ(d["rollout"]["states_read_back"], 90);
  EXPECT_LT(d["rollout"]["submissions"].get<int64_t>(), 10) << d.dump();
  EXPECT_EQ(d["decode"]["snapshots"], 2);
  EXPECT_GT(d["decode"]["mean_host_ms"].get<double>(), 0.0);
  // The set-up decoded once in the run's mode (snapshots: the fields are compared on the host),
  // so that the first snapshot's decode does no one-time work; each decode's host time in parts.
  ASSERT_TRUE(d.contains("setup_decode_warmup")) << d.dump();
  EXPECT_EQ(d["setup_decode_warmup"]["mode"], "snapshots");
  EXPECT_GT(d["setup_decode_warmup"]["host_ms"].get<double>(), 0.0);
  EXPECT_LT(d["setup_decode_warmup"]["host_ms"].get<double>(), on_dev->timings.setup_ms);
  EXPECT_GT(d["setup_decode_warmup"]["tower_host_ms"].get<double>(), 0.0);
  for (const char* k : {"host_record_ms_each", "host_wait_ms_each", "host_finish_ms_each"}) {
    ASSERT_EQ(d["decode"][k].size(), 2u) << k;
    for (size_t s = 0; s < 2; ++s) {
      EXPECT_GE(d["decode"][k][s].get<double>(), 0.0) << k;
      EXPECT_LE(d["decode"][k][s].get<double>(), d["decode"]["host_ms_each"][s].get<double>())
          << k;
    }
  }
  // The scale tower of every decoded snapshot, on the device from the decoder's buffer: the same
  // statistics as core_ref's tower of the field the device decoded (its twin input) and of the
  // reference's decoded field; only the layer records were read back.
  const std::vector<std::vector<ScaleLayer>>& towers = dev->DecodedScaleTowers();
  ASSERT_EQ(towers.size(), 2u);
  for (size_t s = 0; s < towers.size(); ++s) {
    for (const auto* field : {&on_dev->snapshots[s].decoded.omega,
                              &on_ref->snapshots[s].decoded.omega}) {
      StatusOr<ScaleTower> want = BuildScaleTower(*field, p.les.n, ScaleTowerParams{});
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      const LayerComparison c = CompareScaleLayers(towers[s], want->layers);
      EXPECT_EQ(c.integer_mismatches, 0) << "snapshot " << s << ": " << c.first_difference;
      EXPECT_LE(c.max_float_error, 1e-12) << "snapshot " << s << ": " << c.largest_float_error;
    }
  }
  EXPECT_EQ(d["scales"]["snapshots"], 2) << d.dump();
  EXPECT_EQ(d["scales"]["stats_readback_bytes"], (towers[0].size() + 1) * 104) << d.dump();
  StatusOr<Backend> ref = Backend::Open({.name = "ref"}, "dashi test");
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(ref->PipelineDeviceJson(), nlohmann::json({{"gpu_hotloop_active", false}}));
  EXPECT_TRUE(ref->DecodedScaleTowers().empty());
  const Status v = dev->CheckValidation();
  EXPECT_TRUE(v.ok()) << v.ToString();
}

// Observer "metrics" (issue 13 #1): the snapshots are decoded and compared with the LES on the
// device — no field comes back, only the closure's records and eight sums per snapshot — and the
// scores equal the reference's (which decodes and scores on the host) within the decode's
// tolerance; the closure statistics are the same integers.
TEST(BackendTest, MetricsModeScoresTheSnapshotsOnTheDevice) {
  BackendOptions o{.name = "vulkan"};
  o.vulkan.cert_store = EmptyStore("store_metrics");
  o.vulkan.allow_uncertified = true;
  o.vulkan.validation = true;
  StatusOr<Backend> dev = Backend::Open(o, "dashi test");
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  PipelineParams p = SmallPipeline();
  p.eval_seeds = {2};
  p.train_steps = 60;
  p.eval_steps = 40;
  p.hash_every = 10;
  p.snapshots = 3;
  p.keep_snapshot_fields = false;
  StatusOr<PipelineResult> on_dev = RunPipeline(p, {}, dev->PipelineHooks());
  ASSERT_TRUE(on_dev.ok()) << on_dev.status().ToString();
  StatusOr<PipelineResult> on_ref = RunPipeline(p);
  ASSERT_TRUE(on_ref.ok()) << on_ref.status().ToString();
  ASSERT_EQ(on_dev->snapshots.size(), 3u);
  ASSERT_EQ(on_ref->snapshots.size(), 3u);
  for (size_t s = 0; s < 3; ++s) {
    const SnapshotResult& d = on_dev->snapshots[s];
    const SnapshotResult& r = on_ref->snapshots[s];
    SCOPED_TRACE("snapshot " + std::to_string(s));
    EXPECT_TRUE(d.decoded.omega.empty());  // the field stayed on the device
    EXPECT_FALSE(r.decoded.omega.empty());
    EXPECT_NEAR(d.rel_l2, r.rel_l2, 1e-9 * r.rel_l2);
    EXPECT_NEAR(d.correlation, r.correlation, 1e-9);
    EXPECT_NEAR(d.energy_decoded, r.energy_decoded, 1e-9 * r.energy_decoded);
    EXPECT_NEAR(d.enstrophy_decoded, r.enstrophy_decoded, 1e-9 * r.enstrophy_decoded);
    EXPECT_EQ(d.energy_les, r.energy_les);
    EXPECT_EQ(d.decoded.closure.depth, r.decoded.closure.depth);
    EXPECT_EQ(d.decoded.closure.levels.size(), r.decoded.closure.levels.size());
  }
  const nlohmann::json j = dev->PipelineDeviceJson();
  EXPECT_EQ(j["decode"]["mode"], "metrics") << j.dump();
  EXPECT_EQ(j["decode"]["field_readback_bytes_per_snapshot"], 0) << j.dump();
  EXPECT_EQ(j["decode"]["scored_on_device"], true);
  EXPECT_LT(j["decode"]["readback_bytes_per_snapshot"].get<int64_t>(), 4096) << j.dump();
  // The set-up's warm-up decode ran in metrics mode, with the device comparison after it.
  EXPECT_EQ(j["setup_decode_warmup"]["mode"], "metrics") << j.dump();
  EXPECT_GT(j["setup_decode_warmup"]["device_ms"].get<double>(), 0.0) << j.dump();
  const Status v = dev->CheckValidation();
  EXPECT_TRUE(v.ok()) << v.ToString();
}

}  // namespace
}  // namespace dashi::backend
