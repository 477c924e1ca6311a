// The hash-chained linear rollout z_{t+1} = z_t·A (the product in the canonical order of
// vecmat.h), with a BLAKE2b-128 hash chain over checkpointed states so two backends can prove
// that they produced the same trajectory bit for bit (docs/MATH.md, "Hash chain").
//
//   RolloutParams p{.steps = 1000, .hash_every = 100};
//   StatusOr<RolloutResult> r = Rollout(z0, a, p);        // a: D×D row-major, z0: D entries
//   if (!r.ok()) return r.status();
//   std::string head = ToHex(r->chain.back().link);        // one hex string certifies the run
//
// Checkpoints are taken at steps 0, hash_every, 2·hash_every, … and at the final step `steps`
// (also when it is not a multiple of hash_every). Step t's state is z_t (z_0 = z0). At each:
//   state_hash = BLAKE2b-128(z_t as D little-endian fp64, C order)           (MATH §4)
//   link       = BLAKE2b-128(previous link ‖ state_hash)   (32 bytes in; the previous link
//                                                            of the first checkpoint is 16 zeros)
#ifndef DASHI_CORE_REF_ROLLOUT_ROLLOUT_H_
#define DASHI_CORE_REF_ROLLOUT_ROLLOUT_H_

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core_ref/rollout/vecmat.h"
#include "core_ref/status/status.h"

namespace dashi {

using Hash128 = std::array<uint8_t, 16>;

struct RolloutParams {
  int64_t steps = 0;          // number of products z ← z·A; ≥ 0
  int64_t hash_every = 1;     // checkpoint spacing; ≥ 1
  int64_t observe_every = 0;  // observer spacing; ≥ 1 when an observer is given (else ignored)
};

struct ChainCheckpoint {
  int64_t step = 0;
  Hash128 state_hash{};
  Hash128 link{};
  friend bool operator==(const ChainCheckpoint&, const ChainCheckpoint&) = default;
};

struct RolloutResult {
  std::vector<double> final_state;      // z_steps
  std::vector<ChainCheckpoint> chain;   // in increasing step order
};

// Called with (t, z_t) at t = 0, observe_every, 2·observe_every, … and at t = steps, after that
// step's checkpoint (if any) was recorded. The span is valid only during the call. A non-OK
// Status stops the rollout; Rollout returns it prefixed with "rollout observer at step t".
using RolloutObserver = std::function<Status(int64_t step, std::span<const double> state)>;

// Runs the rollout. D = z0.size().
// INVALID_ARGUMENT: D = 0, a.size() ≠ D², steps < 0, hash_every < 1, observe_every < 0, an
//   observer with observe_every = 0, or a NaN/±Inf in z0 or A (the message names the index).
// OUT_OF_RANGE: the state became non-finite (blow-up, e.g. spectral radius of A above 1); the
//   message names the step and the first non-finite index.
// An exception thrown by the observer is caught and returned as INTERNAL.
StatusOr<RolloutResult> Rollout(std::span<const double> z0, std::span<const double> a,
                                const RolloutParams& params,
                                const RolloutObserver& observer = nullptr);

// ---- Rollout's checks and errors, word for word, for every backend ------------------------------

// The parameter checks every backend applies first, in this order (steps ≥ 0, hash_every ≥ 1,
// observe_every ≥ 0, and ≥ 1 when an observer is given), with core_ref's messages.
Status ValidateRolloutParams(const RolloutParams& params, bool has_observer);

// INVALID_ARGUMENT "rollout: z0[k] = <v> is not finite" for the first NaN/±Inf of z0.
Status ValidateRolloutStart(std::span<const double> z0);

// INVALID_ARGUMENT "rollout: A[i][j] (flat index k) = <v> is not finite" for the first NaN/±Inf
// of the D×D row-major matrix `a` (a.size() = D² is checked by the caller).
Status ValidateRolloutMatrixValues(std::span<const double> a, int64_t dim);

// OUT_OF_RANGE "rollout: the state became non-finite at step t (z[k] = <v>); A amplifies the
// state (spectral radius above 1?)" for the first NaN/±Inf of `state` (z_t); OK when all are
// finite.
Status CheckRolloutStateFinite(std::span<const double> state, int64_t step);

// Index of the first NaN or ±Inf in v, or -1.
int64_t FirstNonFiniteIndex(std::span<const double> v);

// body(), with an escaping exception turned into a Status as Rollout does (who = "rollout"):
// RESOURCE_EXHAUSTED "<who>: out of memory", INTERNAL "<who>: unexpected exception: <what>".
template <typename T, typename Body>
StatusOr<T> CatchRolloutExceptions(std::string_view who, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError(std::string(who) + ": out of memory");
  } catch (const std::exception& e) {
    return InternalError(std::string(who) + ": unexpected exception: " + e.what());
  } catch (...) {
    return InternalError(std::string(who) + ": unexpected exception");
  }
}

// True when `step` (0 ≤ step ≤ steps) gets a checkpoint: step % hash_every == 0 or step == steps.
bool IsCheckpointStep(int64_t step, int64_t steps, int64_t hash_every);

// BLAKE2b-128 of the state's little-endian fp64 bytes (independent of the host's byte order).
Hash128 StateHash(std::span<const double> state);

// BLAKE2b-128(previous ‖ state_hash).
Hash128 NextChainLink(const Hash128& previous, const Hash128& state_hash);

// [{"step":0,"state_hash":"<32 hex>","link":"<32 hex>"},...] on one line, no spaces.
std::string ChainToJson(std::span<const ChainCheckpoint> chain);

}  // namespace dashi

#endif  // DASHI_CORE_REF_ROLLOUT_ROLLOUT_H_
