#include "backend/rollout_audit.h"

#include <cstring>

#include "core_ref/blake2b/blake2b.h"

namespace dashi::backend {
namespace {

bool SameBits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

StatusOr<AuditResult> AuditRollout(std::span<const double> z0, int64_t steps, int64_t hash_every,
                                   const RolloutBackend& reference, const RolloutBackend& device) {
  DASHI_ASSIGN_OR_RETURN(RolloutResult ref, reference(z0, 0, steps, hash_every));
  DASHI_ASSIGN_OR_RETURN(RolloutResult dev, device(z0, 0, steps, hash_every));
  AuditResult out;
  out.checkpoints = static_cast<int64_t>(ref.chain.size());
  if (ref.chain.size() != dev.chain.size()) {
    return InternalError("the backends produced " + std::to_string(ref.chain.size()) + " and " +
                         std::to_string(dev.chain.size()) + " checkpoints");
  }
  size_t k = 0;
  while (k < ref.chain.size() && ref.chain[k].state_hash == dev.chain[k].state_hash) ++k;
  if (k == ref.chain.size()) {
    out.chains_equal = true;
    return out;
  }
  out.first_diverging_checkpoint_step = ref.chain[k].step;
  std::vector<double> base(z0.begin(), z0.end());
  int64_t base_step = 0;
  if (k > 0) {
    out.last_matching_checkpoint_step = ref.chain[k - 1].step;
    base_step = ref.chain[k - 1].step;
    if (base_step > 0) {
      DASHI_ASSIGN_OR_RETURN(RolloutResult to_base, reference(z0, 0, base_step, base_step));
      base = to_base.final_state;
    }
  }
  // The states agree at base_step and differ at ref.chain[k].step. Narrow a long stretch by
  // bisection (which assumes a divergence, once there, persists), then walk the last stretch one
  // step at a time, feeding both backends the same (agreeing) state: the first step whose
  // outputs differ is where the device first computed a different product.
  constexpr int64_t kWalk = 256;
  int64_t lo = 0, hi = ref.chain[k].step - base_step;
  while (hi - lo > kWalk) {
    const int64_t mid = lo + (hi - lo) / 2;
    DASHI_ASSIGN_OR_RETURN(RolloutResult r, reference(base, base_step, mid, mid));
    DASHI_ASSIGN_OR_RETURN(RolloutResult d, device(base, base_step, mid, mid));
    ++out.bisection_runs;
    if (SameBits(r.final_state, d.final_state)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  std::vector<double> cur = base;
  if (lo > 0) {
    DASHI_ASSIGN_OR_RETURN(RolloutResult r, reference(base, base_step, lo, lo));
    cur = r.final_state;
  }
  for (int64_t n = lo + 1; n <= hi; ++n) {
    DASHI_ASSIGN_OR_RETURN(RolloutResult r, reference(cur, base_step + n - 1, 1, 1));
    DASHI_ASSIGN_OR_RETURN(RolloutResult d, device(cur, base_step + n - 1, 1, 1));
    ++out.bisection_runs;
    if (!SameBits(r.final_state, d.final_state)) {
      out.first_diverging_step = base_step + n;
      out.ref_state_hash = ToHex(StateHash(r.final_state));
      out.dev_state_hash = ToHex(StateHash(d.final_state));
      for (size_t i = 0; i < r.final_state.size(); ++i) {
        if (std::memcmp(&r.final_state[i], &d.final_state[i], sizeof(double)) != 0) {
          out.first_differing_index = static_cast<int64_t>(i);
          out.ref_value = r.final_state[i];
          out.dev_value = d.final_state[i];
          break;
        }
      }
      return out;
    }
    cur = r.final_state;
  }
  // The stretch replayed step by step agrees: the device diverges only over longer runs.
  return InternalError("the chains differ at step " +
                       std::to_string(out.first_diverging_checkpoint_step) +
                       " but replaying steps " + std::to_string(base_step + lo + 1) + ".." +
                       std::to_string(base_step + hi) +
                       " one at a time agrees: the device is not deterministic across runs");
}

StatusOr<AuditResult> AuditPreparedRollouts(std::span<const double> z0, int64_t steps,
                                            int64_t hash_every, PreparedRollout& reference,
                                            PreparedRollout& device) {
  // A prepared rollout does not depend on the absolute step; only test doubles do.
  const auto on = [](PreparedRollout& r) -> RolloutBackend {
    return [&r](std::span<const double> z, int64_t, int64_t n, int64_t every) {
      return r.Run(z, {.steps = n, .hash_every = every, .observe_every = 0});
    };
  };
  return AuditRollout(z0, steps, hash_every, on(reference), on(device));
}

}  // namespace dashi::backend
