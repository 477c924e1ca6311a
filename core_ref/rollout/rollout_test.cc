#include "core_ref/rollout/rollout.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <vector>

#include "core_ref/blake2b/blake2b.h"
#include "core_ref/prng/prng.h"
#include "core_ref/testing/random_inputs.h"
#include "gtest/gtest.h"

namespace dashi {
namespace {

using testing::UniformValues;

// Cyclic permutation A[i][(i+1) mod D] = s: z·A = s·(z[D−1], z[0], …, z[D−2]).
std::vector<double> CyclicShift(int64_t dim, double s) {
  std::vector<double> a(dim * dim, 0.0);
  for (int64_t i = 0; i < dim; ++i) a[i * dim + (i + 1) % dim] = s;
  return a;
}

std::vector<int64_t> Steps(const RolloutResult& r) {
  std::vector<int64_t> out;
  for (const ChainCheckpoint& c : r.chain) out.push_back(c.step);
  return out;
}

// Known answer, computed independently with Python's hashlib:
//   H = lambda b: hashlib.blake2b(b, digest_size=16).digest()
//   states 0: (1,2,3), 2: (2,3,1), 3: (1,2,3); link = H(link + H(struct.pack('<3d', *state)))
TEST(RolloutTest, KnownAnswerChain) {
  const std::vector<double> z0 = {1, 2, 3};
  const std::vector<double> a = CyclicShift(3, 1.0);  // (z0, z1, z2) → (z2, z0, z1)
  StatusOr<RolloutResult> r = Rollout(z0, a, {.steps = 3, .hash_every = 2});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->final_state, (std::vector<double>{1, 2, 3}));
  ASSERT_EQ(Steps(*r), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(ToHex(r->chain[0].state_hash), "8959d46120afcf3cebaa7c6fe3da81b2");
  EXPECT_EQ(ToHex(r->chain[0].link), "73114502b1c33800fd701a313d76a408");
  EXPECT_EQ(ToHex(r->chain[1].state_hash), "3bcdada874f1d16ce35a26ac580b0306");
  EXPECT_EQ(ToHex(r->chain[1].link), "079d142bc888ea6c133ed245535430d8");
  EXPECT_EQ(ToHex(r->chain[2].state_hash), "8959d46120afcf3cebaa7c6fe3da81b2");
  EXPECT_EQ(ToHex(r->chain[2].link), "f3dd4eaed8aac70443a9fea2375be0fa");
  EXPECT_EQ(ChainToJson(r->chain),
            "[{\"step\":0,\"state_hash\":\"8959d46120afcf3cebaa7c6fe3da81b2\",\"link\":"
            "\"73114502b1c33800fd701a313d76a408\"},{\"step\":2,\"state_hash\":"
            "\"3bcdada874f1d16ce35a26ac580b0306\",\"link\":\"079d142bc888ea6c133ed245535430d8\"},"
            "{\"step\":3,\"state_hash\":\"8959d46120afcf3cebaa7c6fe3da81b2\",\"link\":"
            "\"f3dd4eaed8aac70443a9fea2375be0fa\"}]");
}

TEST(RolloutTest, CheckpointSteps) {
  const std::vector<double> z0 = {1, -1};
  const std::vector<double> a = CyclicShift(2, 0.5);
  struct Case {
    int64_t steps, every;
    std::vector<int64_t> want;
  };
  const Case cases[] = {
      {10, 4, {0, 4, 8, 10}}, {8, 4, {0, 4, 8}}, {0, 5, {0}},         {1, 1, {0, 1}},
      {3, 1, {0, 1, 2, 3}},   {5, 100, {0, 5}},  {7, 7, {0, 7}},      {9, 2, {0, 2, 4, 6, 8, 9}},
  };
  for (const Case& c : cases) {
    StatusOr<RolloutResult> r = Rollout(z0, a, {.steps = c.steps, .hash_every = c.every});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Steps(*r), c.want) << "steps " << c.steps << " every " << c.every;
    for (const ChainCheckpoint& cp : r->chain) {
      EXPECT_TRUE(IsCheckpointStep(cp.step, c.steps, c.every));
    }
  }
}

// Each checkpoint is BLAKE2b-128 of the state's bytes and the link hashes previous ‖ state hash;
// the states are those of repeated CanonicalVecMat.
TEST(RolloutTest, CheckpointsHashTheStateBytes) {
  Xoshiro256ss rng(99);
  const int64_t dim = 70;
  const std::vector<double> z0 = UniformValues(rng, dim, 1.0);
  std::vector<double> a = UniformValues(rng, dim * dim, 1.0 / std::sqrt(static_cast<double>(dim)));
  StatusOr<RolloutResult> r = Rollout(z0, a, {.steps = 13, .hash_every = 5});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(Steps(*r), (std::vector<int64_t>{0, 5, 10, 13}));

  std::vector<double> z = z0, next(dim);
  uint8_t link[16] = {};
  size_t cp = 0;
  for (int64_t t = 0; t <= 13; ++t) {
    if (t > 0) {
      ASSERT_TRUE(CanonicalVecMat(z, a, next).ok());
      z.swap(next);
    }
    if (cp < r->chain.size() && r->chain[cp].step == t) {
      const std::vector<uint8_t> h = Blake2b128(z.data(), z.size() * sizeof(double));
      ASSERT_EQ(h.size(), 16u);
      EXPECT_EQ(std::memcmp(h.data(), r->chain[cp].state_hash.data(), 16), 0) << "step " << t;
      EXPECT_EQ(r->chain[cp].state_hash, StateHash(z));
      uint8_t msg[32];
      std::memcpy(msg, link, 16);
      std::memcpy(msg + 16, h.data(), 16);
      const std::vector<uint8_t> l = Blake2b128(msg, 32);
      EXPECT_EQ(std::memcmp(l.data(), r->chain[cp].link.data(), 16), 0) << "step " << t;
      std::memcpy(link, l.data(), 16);
      ++cp;
    }
  }
  EXPECT_EQ(cp, r->chain.size());
  EXPECT_EQ(std::memcmp(z.data(), r->final_state.data(), dim * sizeof(double)), 0);
}

// Flipping any single bit of z0 changes the first state hash and every link after it.
TEST(RolloutTest, ChainChangesWithAnyBitOfZ0) {
  const int64_t dim = 5;
  const std::vector<double> z0 = {0.3, -3.7, 2.25, 1e-3, -42.0};  // no exponent 0x3FF
  const std::vector<double> a = CyclicShift(dim, 0.5);
  const RolloutParams p{.steps = 6, .hash_every = 3};
  StatusOr<RolloutResult> base = Rollout(z0, a, p);
  ASSERT_TRUE(base.ok());
  for (int64_t k = 0; k < dim; ++k) {
    for (int bit = 0; bit < 64; ++bit) {
      std::vector<double> z = z0;
      z[k] = std::bit_cast<double>(std::bit_cast<uint64_t>(z[k]) ^ (uint64_t{1} << bit));
      ASSERT_TRUE(std::isfinite(z[k]));
      StatusOr<RolloutResult> r = Rollout(z, a, p);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ(r->chain.size(), base->chain.size());
      EXPECT_NE(r->chain[0].state_hash, base->chain[0].state_hash) << k << " " << bit;
      for (size_t c = 0; c < r->chain.size(); ++c) {
        EXPECT_NE(r->chain[c].link, base->chain[c].link) << k << " " << bit << " " << c;
      }
    }
  }
}

TEST(RolloutTest, DeterministicAcrossRuns) {
  Xoshiro256ss rng(5);
  const int64_t dim = 150;
  const std::vector<double> z0 = UniformValues(rng, dim, 1.0);
  const std::vector<double> a = UniformValues(rng, dim * dim, 0.08);
  StatusOr<RolloutResult> r1 = Rollout(z0, a, {.steps = 40, .hash_every = 7});
  StatusOr<RolloutResult> r2 = Rollout(z0, a, {.steps = 40, .hash_every = 7});
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_EQ(r1->chain, r2->chain);
  EXPECT_EQ(std::memcmp(r1->final_state.data(), r2->final_state.data(), dim * sizeof(double)), 0);
}

TEST(RolloutTest, ObserverSeesStatesAtItsSpacing) {
  const std::vector<double> z0 = {1, 2, 3, 4};
  const std::vector<double> a = CyclicShift(4, 2.0);
  std::vector<int64_t> seen;
  std::vector<std::vector<double>> states;
  RolloutObserver obs = [&](int64_t step, std::span<const double> z) {
    seen.push_back(step);
    states.emplace_back(z.begin(), z.end());
    return OkStatus();
  };
  StatusOr<RolloutResult> r = Rollout(z0, a, {.steps = 7, .hash_every = 2, .observe_every = 3}, obs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 3, 6, 7}));
  EXPECT_EQ(states[0], z0);
  EXPECT_EQ(states[1], (std::vector<double>{16, 24, 32, 8}));  // 8 · shift³
  EXPECT_EQ(states[3], r->final_state);
}

TEST(RolloutTest, ObserverErrorStopsTheRollout) {
  const std::vector<double> z0 = {1, 2};
  const std::vector<double> a = CyclicShift(2, 1.0);
  int calls = 0;
  RolloutObserver obs = [&](int64_t step, std::span<const double>) {
    ++calls;
    return step == 4 ? DataLossError("disk full") : OkStatus();
  };
  StatusOr<RolloutResult> r = Rollout(z0, a, {.steps = 10, .hash_every = 1, .observe_every = 2}, obs);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(r.status().message(), "rollout observer at step 4: disk full");
  EXPECT_EQ(calls, 3);

  RolloutObserver thrower = [](int64_t, std::span<const double>) -> Status {
    throw std::runtime_error("boom");
  };
  r = Rollout(z0, a, {.steps = 1, .hash_every = 1, .observe_every = 1}, thrower);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(RolloutTest, BlowUpNamesTheStep) {
  const std::vector<double> z0 = {1.0, 1.0};
  const std::vector<double> a = CyclicShift(2, 1e100);
  StatusOr<RolloutResult> r = Rollout(z0, a, {.steps = 10, .hash_every = 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  // 1e100^3 = 1e300 is finite, 1e100^4 overflows.
  EXPECT_NE(r.status().message().find("non-finite at step 4"), std::string::npos)
      << r.status().ToString();
}

TEST(RolloutTest, RejectsInvalidInputs) {
  const std::vector<double> z0 = {1, 2, 3};
  const std::vector<double> a = CyclicShift(3, 1.0);
  const RolloutParams ok{.steps = 2, .hash_every = 1};
  EXPECT_EQ(Rollout({}, {}, ok).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Rollout(z0, std::vector<double>(8), ok).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Rollout(z0, a, {.steps = -1, .hash_every = 1}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Rollout(z0, a, {.steps = 1, .hash_every = 0}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Rollout(z0, a, {.steps = 1, .hash_every = 1, .observe_every = -2}).status().code(),
            StatusCode::kInvalidArgument);
  RolloutObserver obs = [](int64_t, std::span<const double>) { return OkStatus(); };
  EXPECT_EQ(Rollout(z0, a, ok, obs).status().code(), StatusCode::kInvalidArgument);

  std::vector<double> bad_z = z0;
  bad_z[2] = std::numeric_limits<double>::quiet_NaN();
  Status s = Rollout(bad_z, a, ok).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("z0[2]"), std::string::npos) << s.ToString();

  std::vector<double> bad_a = a;
  bad_a[7] = -std::numeric_limits<double>::infinity();
  s = Rollout(z0, bad_a, ok).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("A[2][1]"), std::string::npos) << s.ToString();
}

// The checks and errors other backends reuse are the ones Rollout reports, word for word.
TEST(RolloutTest, SharedChecksGiveRolloutsMessages) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> a = CyclicShift(3, 1.0);
  const std::vector<double> z0 = {1, 2, 3};
  EXPECT_EQ(FirstNonFiniteIndex(z0), -1);
  EXPECT_EQ(FirstNonFiniteIndex(std::vector<double>{1, inf, nan}), 1);
  EXPECT_TRUE(ValidateRolloutStart(z0).ok());
  EXPECT_TRUE(ValidateRolloutMatrixValues(a, 3).ok());
  EXPECT_TRUE(CheckRolloutStateFinite(z0, 5).ok());

  const std::vector<double> bad_z = {1, 2, nan};
  EXPECT_EQ(ValidateRolloutStart(bad_z), Rollout(bad_z, a, {.steps = 1}).status());
  EXPECT_EQ(ValidateRolloutStart(bad_z).message(), "rollout: z0[2] = nan is not finite");
  std::vector<double> bad_a = a;
  bad_a[7] = -inf;
  EXPECT_EQ(ValidateRolloutMatrixValues(bad_a, 3), Rollout(z0, bad_a, {.steps = 1}).status());
  EXPECT_EQ(ValidateRolloutMatrixValues(bad_a, 3).message(),
            "rollout: A[2][1] (flat index 7) = -inf is not finite");

  const std::vector<double> big = {1.0, 1.0};
  const Status blow_up = Rollout(big, CyclicShift(2, 1e100), {.steps = 10}).status();
  EXPECT_EQ(CheckRolloutStateFinite(std::vector<double>{inf, inf}, 4), blow_up);
  EXPECT_EQ(blow_up.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(blow_up.message(),
            "rollout: the state became non-finite at step 4 (z[0] = inf); A amplifies the state "
            "(spectral radius above 1?)");

  StatusOr<int> thrown = CatchRolloutExceptions<int>(
      "rollout", []() -> StatusOr<int> { throw std::runtime_error("boom"); });
  EXPECT_EQ(thrown.status().code(), StatusCode::kInternal);
  EXPECT_EQ(thrown.status().message(), "rollout: unexpected exception: boom");
  StatusOr<int> oom =
      CatchRolloutExceptions<int>("x", []() -> StatusOr<int> { throw std::bad_alloc(); });
  EXPECT_EQ(oom.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(oom.status().message(), "x: out of memory");
  EXPECT_EQ(*CatchRolloutExceptions<int>("x", []() -> StatusOr<int> { return 7; }), 7);
}

TEST(RolloutTest, ZeroStepsHashesTheInitialState) {
  const std::vector<double> z0 = {0.5, -0.0};
  StatusOr<RolloutResult> r = Rollout(z0, CyclicShift(2, 1.0), {.steps = 0, .hash_every = 3});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->chain.size(), 1u);
  EXPECT_EQ(r->chain[0].state_hash, StateHash(z0));
  EXPECT_EQ(r->chain[0].link, NextChainLink(Hash128{}, StateHash(z0)));
  EXPECT_EQ(std::memcmp(r->final_state.data(), z0.data(), sizeof(double) * 2), 0);
}

}  // namespace
}  // namespace dashi
