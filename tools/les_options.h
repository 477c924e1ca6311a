// The LES flags shared by `dashi simulate` and `dashi run`, and their JSON record.
#ifndef DASHI_TOOLS_LES_OPTIONS_H_
#define DASHI_TOOLS_LES_OPTIONS_H_

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core_ref/les/les_solver.h"

namespace dashi::tools {

struct LesCliOptions {
  int64_t n = 128;
  double dt = 0.005;
  double nu0 = 1e-3;
  double cs = 0.17;
  uint64_t seed = 1;
  std::string init = "random";
  double energy = 0.5;
  int k_peak = 4;
  int tg_k = 1;

  StatusOr<LesParams> ToParams() const;
};

// `with_seed` is false where the command has its own seeds (run: --train-seed, --eval-seed).
void AddLesOptions(CLI::App& cmd, LesCliOptions& o, bool with_seed = true);
nlohmann::json LesParamsJson(const LesParams& p);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_LES_OPTIONS_H_
