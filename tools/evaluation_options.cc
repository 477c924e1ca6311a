#include "tools/evaluation_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core_ref/npy/npy.h"
#include "tools/cli_numbers.h"
#include "tools/cli_util.h"

namespace dashi::tools {
namespace {

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> items(1);
  for (char c : text) {
    if (c == ',') {
      items.emplace_back();
    } else {
      items.back() += c;
    }
  }
  return items;
}

StatusOr<uint64_t> ParseDecimal(const std::string& item, const std::string& flag) {
  const auto bad = [&] {
    return InvalidArgumentError(flag + ": '" + item +
                                "' is not a decimal number in 0 .. 2^64 - 1");
  };
  if (item.empty() || item.size() > 20) return bad();
  uint64_t v = 0;
  for (char c : item) {
    if (c < '0' || c > '9') return bad();
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return bad();
    v = v * 10 + d;
  }
  return v;
}

StatusOr<double> ParsePositive(const std::string& item, const std::string& what) {
  const char* begin = item.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (item.empty() || end != begin + item.size() || errno != 0 || !std::isfinite(v) || v < 0) {
    return InvalidArgumentError("--eval-shift: " + what + " = '" + item +
                                "' is not a finite non-negative number");
  }
  return v;
}

// --k-step's K: 0 for auto, else in 1 .. 1000000.
StatusOr<int64_t> ParseKStep(const std::string& text) {
  if (text == "auto") return 0;
  StatusOr<uint64_t> k = ParseDecimal(text, "--k-step");
  if (!k.ok() || *k < 1 || *k > 1000000) {
    return InvalidArgumentError("'" + text + "' is not auto or a number in 1 .. 1000000");
  }
  return static_cast<int64_t>(*k);
}

}  // namespace

void AddEvaluationOptions(CLI::App& cmd, EvaluationCliOptions& o) {
  cmd.add_option("--learner", o.learner,
                 "ridge (full DxD, lambda chosen on the validation seeds unless --lambda is "
                 "given), scalar, diagonal, shell (one gain per |k| shell; the default: the best "
                 "validation skill with the energy kept, docs/MATH.md §10), mode2x2 (one complex "
                 "gain per mode)")
      ->check(CLI::IsMember({"ridge", "scalar", "diagonal", "shell", "mode2x2"}))
      ->capture_default_str();
  cmd.add_option("--loss", o.loss,
                 "one-step (fit z_{t+1} from z_t) or k-step (fit z_{t+tau} from z_t for "
                 "tau = 1..K; not for ridge)")
      ->check(CLI::IsMember({"one-step", "k-step"}))
      ->capture_default_str();
  cmd.add_option("--k-step", o.k_step,
                 "K of the k-step loss: a number, or auto (chosen on the validation seeds from "
                 "1, 5, 10, 20)")
      ->check(AcceptedBy([](const std::string& s) { return ParseKStep(s).status(); }))
      ->capture_default_str();
  cmd.add_option("--energy-constraint", o.energy_constraint,
                 "on: the scalar, diagonal and shell gains keep, after L = min(eval steps, train "
                 "steps / 2) steps, the energy the training LES kept; off: plain least squares")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cmd.add_option("--train-seeds", o.train_seeds,
                 "LES seeds of the training windows, comma-separated; the anchors come from the "
                 "first one's frame --train-start")
      ->capture_default_str();
  cmd.add_option("--val-seeds", o.val_seeds,
                 "LES seeds that choose K (or ridge's lambda); never evaluated on (\"\" for none)")
      ->capture_default_str();
  cmd.add_option("--eval-seeds", o.eval_seeds,
                 "Held-out LES seeds of the evaluation; their rollouts run as one batch")
      ->capture_default_str();
  cmd.add_option("--train-start", o.train_start,
                 "Proxy frame where each training window starts (the LES spins up before it)")
      ->capture_default_str();
  cmd.add_option("--eval-start", o.eval_start,
                 "Proxy frame where each validation and eval rollout starts")
      ->capture_default_str();
  cmd.add_option("--eval-shift", o.eval_shift,
                 "Evaluate on LES runs with other parameters than training: nu=V,cs=V,dt=V (any "
                 "subset; absolute values; validation keeps the training parameters)");
  cmd.add_flag("--no-train", o.no_train,
               "Do not fit: evaluate the A given by --a (its D must match the proxy of these "
               "parameters; the train seeds still give the anchors and the damped persistence)");
  cmd.add_option("--a", o.a_path, "A.npy (float64 [D, D]) to evaluate with --no-train")
      ->type_name("PATH");
  cmd.add_option("--threads", o.threads,
                 "LES runs at once (each single-threaded; the results do not depend on it)")
      ->check(IntAtLeast(1))
      ->capture_default_str();
}

StatusOr<std::vector<uint64_t>> ParseSeedList(const std::string& text, const std::string& flag) {
  std::vector<uint64_t> seeds;
  if (text.empty()) return seeds;
  for (const std::string& item : SplitCommas(text)) {
    DASHI_ASSIGN_OR_RETURN(uint64_t s, ParseDecimal(item, flag));
    seeds.push_back(s);
  }
  return seeds;
}

StatusOr<LesShift> ParseEvalShift(const std::string& text) {
  LesShift shift;
  if (text.empty()) return shift;
  for (const std::string& item : SplitCommas(text)) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    std::optional<double>* slot = key == "nu" ? &shift.nu0 : key == "cs" ? &shift.cs
                                 : key == "dt"  ? &shift.dt : nullptr;
    if (eq == std::string::npos || slot == nullptr) {
      return InvalidArgumentError("--eval-shift: '" + item +
                                  "' is not one of nu=V, cs=V, dt=V");
    }
    if (slot->has_value()) return InvalidArgumentError("--eval-shift: " + key + " given twice");
    DASHI_ASSIGN_OR_RETURN(double v, ParsePositive(item.substr(eq + 1), key));
    *slot = v;
  }
  return shift;
}

Status ApplyEvaluationOptions(const EvaluationCliOptions& o, PipelineParams& p) {
  DASHI_ASSIGN_OR_RETURN(p.learner.kind, ParseLearnerKind(o.learner));
  const bool ridge = p.learner.kind == LearnerKind::kRidge;
  if (ridge && o.loss == "k-step" && o.k_step != "auto") {
    return InvalidArgumentError("--learner ridge has a one-step loss only (--k-step " + o.k_step +
                                " given)");
  }
  p.learner.energy_constraint = IsGainLearner(p.learner.kind) && o.energy_constraint == "on";
  if (ridge || o.loss == "one-step") {
    p.learner.k = 1;
    p.choose_k = false;
  } else {
    DASHI_ASSIGN_OR_RETURN(const int64_t k, ParseKStep(o.k_step));
    p.choose_k = k == 0;
    if (k != 0) p.learner.k = k;
  }
  p.choose_lambda = ridge && !o.lambda_given;
  DASHI_ASSIGN_OR_RETURN(p.train_seeds, ParseSeedList(o.train_seeds, "--train-seeds"));
  DASHI_ASSIGN_OR_RETURN(p.val_seeds, ParseSeedList(o.val_seeds, "--val-seeds"));
  DASHI_ASSIGN_OR_RETURN(p.eval_seeds, ParseSeedList(o.eval_seeds, "--eval-seeds"));
  p.train_start = o.train_start;
  p.eval_start = o.eval_start;
  DASHI_ASSIGN_OR_RETURN(p.eval_shift, ParseEvalShift(o.eval_shift));
  p.threads = o.threads;
  if (o.no_train != !o.a_path.empty()) {
    return InvalidArgumentError("--no-train and --a go together: --a names the A to evaluate");
  }
  if (o.no_train) {
    DASHI_ASSIGN_OR_RETURN(NpyArray a, ReadF64Array(o.a_path, 2));
    if (a.shape[0] != a.shape[1]) {
      return InvalidArgumentError(o.a_path + ": shape " + NpyShapeString(a.shape) +
                                  " is not square");
    }
    DASHI_ASSIGN_OR_RETURN(p.given_a, a.As<double>());
  }
  return OkStatus();
}

}  // namespace dashi::tools
