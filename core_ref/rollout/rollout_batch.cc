#include "core_ref/rollout/rollout_batch.h"

#include <string>
#include <utility>

#include "core_ref/rollout/vecmat.h"

namespace dashi {
namespace {

std::string RowPrefix(int64_t b) { return "trajectory " + std::to_string(b); }

StatusOr<std::vector<RolloutResult>> RolloutBatchImpl(std::span<const double> z0, int64_t batch,
                                                      std::span<const double> a,
                                                      const RolloutParams& params,
                                                      const BatchRolloutObserver& observer) {
  const bool has_observer = static_cast<bool>(observer);
  DASHI_RETURN_IF_ERROR(ValidateRolloutParams(params, has_observer));
  if (batch < 1 || z0.empty() || z0.size() % static_cast<size_t>(batch) != 0) {
    return InvalidArgumentError("rollout batch: " + std::to_string(z0.size()) +
                                " start values are not batch = " + std::to_string(batch) +
                                " rows of D >= 1");
  }
  const int64_t dim = static_cast<int64_t>(z0.size()) / batch;
  if (a.size() != static_cast<size_t>(dim * dim)) {
    return InvalidArgumentError("rollout: A has " + std::to_string(a.size()) +
                                " entries but z0 has D = " + std::to_string(dim) +
                                ", so A must be D x D = " + std::to_string(dim) + " x " +
                                std::to_string(dim));
  }
  for (int64_t b = 0; b < batch; ++b) {
    Status s = ValidateRolloutStart(z0.subspan(b * dim, dim));
    if (!s.ok()) return s.WithPrefix(RowPrefix(b));
  }
  DASHI_RETURN_IF_ERROR(ValidateRolloutMatrixValues(a, dim));

  VecMatWorkspace workspace;
  std::vector<double> state(z0.begin(), z0.end()), next(dim);
  BatchRolloutRecorder recorder(batch, dim, params, observer);
  for (int64_t step = 0; step <= params.steps; ++step) {
    if (step > 0) {
      for (int64_t b = 0; b < batch; ++b) {
        const std::span<double> row = std::span<double>(state).subspan(b * dim, dim);
        workspace.Multiply(row.data(), a.data(), dim, next.data());
        std::copy(next.begin(), next.end(), row.begin());
      }
      for (int64_t b = 0; b < batch; ++b) {
        Status s = CheckRolloutStateFinite(std::span<const double>(state).subspan(b * dim, dim),
                                           step);
        if (!s.ok()) return s.WithPrefix(RowPrefix(b));
      }
    }
    DASHI_RETURN_IF_ERROR(recorder.Record(step, state));
  }
  return recorder.Finish(state);
}

}  // namespace

BatchRolloutRecorder::BatchRolloutRecorder(int64_t batch, int64_t dim,
                                           const RolloutParams& params,
                                           const BatchRolloutObserver& observer)
    : batch_(batch),
      dim_(dim),
      params_(params),
      observer_(observer),
      results_(static_cast<size_t>(batch)),
      links_(static_cast<size_t>(batch), Hash128{}) {}

Status BatchRolloutRecorder::Record(int64_t step, std::span<const double> states) {
  for (int64_t b = 0; b < batch_; ++b) {
    const std::span<const double> row = states.subspan(b * dim_, dim_);
    if (IsCheckpointStep(step, params_.steps, params_.hash_every)) {
      ChainCheckpoint cp;
      cp.step = step;
      cp.state_hash = StateHash(row);
      cp.link = NextChainLink(links_[b], cp.state_hash);
      links_[b] = cp.link;
      results_[b].chain.push_back(cp);
    }
    if (observer_ && (step % params_.observe_every == 0 || step == params_.steps)) {
      Status s = observer_(b, step, row);
      if (!s.ok()) {
        return s.WithPrefix(RowPrefix(b) + ": rollout observer at step " + std::to_string(step));
      }
    }
  }
  return OkStatus();
}

std::vector<RolloutResult> BatchRolloutRecorder::Finish(std::span<const double> final_states) {
  for (int64_t b = 0; b < batch_; ++b) {
    results_[b].final_state.assign(final_states.begin() + b * dim_,
                                   final_states.begin() + (b + 1) * dim_);
  }
  return std::move(results_);
}

StatusOr<std::vector<RolloutResult>> RolloutBatch(std::span<const double> z0, int64_t batch,
                                                  std::span<const double> a,
                                                  const RolloutParams& params,
                                                  const BatchRolloutObserver& observer) {
  return CatchRolloutExceptions<std::vector<RolloutResult>>(
      "rollout batch", [&] { return RolloutBatchImpl(z0, batch, a, params, observer); });
}

}  // namespace dashi
