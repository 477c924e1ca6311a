#include "core_ref/rollout/rollout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "core_ref/blake2b/blake2b.h"

namespace dashi {
namespace {

Hash128 ToHash128(const std::vector<uint8_t>& digest) {
  Hash128 h{};
  std::copy_n(digest.begin(), std::min(digest.size(), h.size()), h.begin());
  return h;
}

std::string DoubleText(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return std::to_string(v);
}

Status ValidateInputs(std::span<const double> z0, std::span<const double> a,
                      const RolloutParams& params, bool has_observer) {
  DASHI_RETURN_IF_ERROR(ValidateRolloutParams(params, has_observer));
  const size_t dim = z0.size();
  if (dim == 0) return InvalidArgumentError("rollout: z0 is empty (the dimension D must be >= 1)");
  if (a.size() % dim != 0 || a.size() / dim != dim) {
    return InvalidArgumentError("rollout: A has " + std::to_string(a.size()) +
                                " entries but z0 has D = " + std::to_string(dim) +
                                ", so A must be D x D = " + std::to_string(dim) + " x " +
                                std::to_string(dim));
  }
  DASHI_RETURN_IF_ERROR(ValidateRolloutStart(z0));
  return ValidateRolloutMatrixValues(a, static_cast<int64_t>(dim));
}

StatusOr<RolloutResult> RolloutImpl(std::span<const double> z0, std::span<const double> a,
                                    const RolloutParams& params,
                                    const RolloutObserver& observer) {
  const bool has_observer = static_cast<bool>(observer);
  DASHI_RETURN_IF_ERROR(ValidateInputs(z0, a, params, has_observer));
  const int64_t dim = static_cast<int64_t>(z0.size());

  VecMatWorkspace workspace;
  std::vector<double> state(z0.begin(), z0.end());
  std::vector<double> next(state.size());
  RolloutResult result;
  Hash128 link{};  // 16 zero bytes before the first checkpoint

  for (int64_t step = 0; step <= params.steps; ++step) {
    if (step > 0) {
      workspace.Multiply(state.data(), a.data(), dim, next.data());
      std::swap(state, next);
      DASHI_RETURN_IF_ERROR(CheckRolloutStateFinite(state, step));
    }
    if (IsCheckpointStep(step, params.steps, params.hash_every)) {
      ChainCheckpoint cp;
      cp.step = step;
      cp.state_hash = StateHash(state);
      cp.link = NextChainLink(link, cp.state_hash);
      link = cp.link;
      result.chain.push_back(cp);
    }
    if (has_observer && (step % params.observe_every == 0 || step == params.steps)) {
      Status s = observer(step, std::span<const double>(state));
      if (!s.ok()) return s.WithPrefix("rollout observer at step " + std::to_string(step));
    }
  }
  result.final_state = std::move(state);
  return result;
}

}  // namespace

Status ValidateRolloutParams(const RolloutParams& params, bool has_observer) {
  if (params.steps < 0) {
    return InvalidArgumentError("rollout: steps = " + std::to_string(params.steps) +
                                " is negative");
  }
  if (params.hash_every < 1) {
    return InvalidArgumentError("rollout: hash_every = " + std::to_string(params.hash_every) +
                                " must be >= 1");
  }
  if (params.observe_every < 0) {
    return InvalidArgumentError("rollout: observe_every = " +
                                std::to_string(params.observe_every) + " is negative");
  }
  if (has_observer && params.observe_every == 0) {
    return InvalidArgumentError("rollout: an observer was given but observe_every is 0");
  }
  return OkStatus();
}

Status ValidateRolloutStart(std::span<const double> z0) {
  if (const int64_t k = FirstNonFiniteIndex(z0); k >= 0) {
    return InvalidArgumentError("rollout: z0[" + std::to_string(k) + "] = " +
                                DoubleText(z0[k]) + " is not finite");
  }
  return OkStatus();
}

Status ValidateRolloutMatrixValues(std::span<const double> a, int64_t dim) {
  if (const int64_t k = FirstNonFiniteIndex(a); k >= 0) {
    return InvalidArgumentError("rollout: A[" + std::to_string(k / dim) + "][" +
                                std::to_string(k % dim) + "] (flat index " + std::to_string(k) +
                                ") = " + DoubleText(a[k]) + " is not finite");
  }
  return OkStatus();
}

Status CheckRolloutStateFinite(std::span<const double> state, int64_t step) {
  if (const int64_t k = FirstNonFiniteIndex(state); k >= 0) {
    return OutOfRangeError("rollout: the state became non-finite at step " +
                           std::to_string(step) + " (z[" + std::to_string(k) + "] = " +
                           DoubleText(state[k]) +
                           "); A amplifies the state (spectral radius above 1?)");
  }
  return OkStatus();
}

int64_t FirstNonFiniteIndex(std::span<const double> v) {
  for (size_t k = 0; k < v.size(); ++k) {
    if (!std::isfinite(v[k])) return static_cast<int64_t>(k);
  }
  return -1;
}

bool IsCheckpointStep(int64_t step, int64_t steps, int64_t hash_every) {
  return step % hash_every == 0 || step == steps;
}

Hash128 StateHash(std::span<const double> state) {
  if constexpr (std::endian::native == std::endian::little) {
    return ToHash128(Blake2b128(state.data(), state.size() * sizeof(double)));
  } else {
    std::vector<uint8_t> bytes(state.size() * sizeof(double));
    for (size_t k = 0; k < state.size(); ++k) {
      const uint64_t u = std::bit_cast<uint64_t>(state[k]);
      for (size_t b = 0; b < 8; ++b) bytes[8 * k + b] = static_cast<uint8_t>(u >> (8 * b));
    }
    return ToHash128(Blake2b128(bytes.data(), bytes.size()));
  }
}

Hash128 NextChainLink(const Hash128& previous, const Hash128& state_hash) {
  uint8_t message[32];
  std::memcpy(message, previous.data(), 16);
  std::memcpy(message + 16, state_hash.data(), 16);
  return ToHash128(Blake2b128(message, sizeof(message)));
}

std::string ChainToJson(std::span<const ChainCheckpoint> chain) {
  std::string out = "[";
  for (size_t k = 0; k < chain.size(); ++k) {
    if (k > 0) out += ",";
    out += "{\"step\":" + std::to_string(chain[k].step) + ",\"state_hash\":\"" +
           ToHex(chain[k].state_hash) + "\",\"link\":\"" + ToHex(chain[k].link) + "\"}";
  }
  out += "]";
  return out;
}

StatusOr<RolloutResult> Rollout(std::span<const double> z0, std::span<const double> a,
                                const RolloutParams& params, const RolloutObserver& observer) {
  return CatchRolloutExceptions<RolloutResult>(
      "rollout", [&] { return RolloutImpl(z0, a, params, observer); });
}

}  // namespace dashi
