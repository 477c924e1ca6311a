#include "tools/les_options.h"

#include "tools/cli_numbers.h"

namespace dashi::tools {

StatusOr<LesParams> LesCliOptions::ToParams() const {
  LesParams p;
  p.n = n;
  p.dt = dt;
  p.nu0 = nu0;
  p.cs = cs;
  p.seed = seed;
  DASHI_ASSIGN_OR_RETURN(p.init, ParseLesInit(init));
  p.energy = energy;
  p.k_peak = k_peak;
  p.tg_k = tg_k;
  DASHI_RETURN_IF_ERROR(ValidateLesParams(p));
  return p;
}

void AddLesOptions(CLI::App& cmd, LesCliOptions& o, bool with_seed) {
  cmd.add_option("--n", o.n, "Grid size N (N x N), a power of two in [8, 4096]")
      ->capture_default_str();
  cmd.add_option("--dt", o.dt, "Time step (> 0)")->capture_default_str();
  cmd.add_option("--nu0", o.nu0, "Molecular viscosity (>= 0)")->capture_default_str();
  cmd.add_option("--cs", o.cs, "Smagorinsky constant C_s (>= 0; 0 disables the model)")
      ->capture_default_str();
  if (with_seed) {
    cmd.add_option("--seed", o.seed, "Seed of the random initial condition")
        ->capture_default_str();
  }
  cmd.add_option("--init", o.init,
                 "Initial condition: random (band-limited random phases) or taylor-green")
      ->check(AcceptedBy([](const std::string& s) { return ParseLesInit(s).status(); }))
      ->capture_default_str();
  cmd.add_option("--energy", o.energy, "Kinetic energy of the random initial condition")
      ->capture_default_str();
  cmd.add_option("--k-peak", o.k_peak, "Peak wavenumber of the random initial spectrum")
      ->check(IntAtLeast(1))
      ->capture_default_str();
  cmd.add_option("--tg-k", o.tg_k, "Wavenumber of the Taylor-Green initial condition")
      ->check(IntAtLeast(1))
      ->capture_default_str();
}

nlohmann::json LesParamsJson(const LesParams& p) {
  return {{"n", p.n},         {"dt", p.dt},         {"nu0", p.nu0},
          {"cs", p.cs},       {"seed", p.seed},     {"init", LesInitName(p.init)},
          {"energy", p.energy}, {"k_peak", p.k_peak}, {"tg_k", p.tg_k},
          {"tg_amplitude", p.tg_amplitude}};
}

}  // namespace dashi::tools
