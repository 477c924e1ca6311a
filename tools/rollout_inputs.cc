#include "tools/rollout_inputs.h"

#include "core_ref/npy/npy.h"
#include "tools/cli_numbers.h"
#include "tools/cli_util.h"

namespace dashi::tools {

void AddRolloutInputFlags(CLI::App& cmd, RolloutInputFlags& f, bool allow_batch) {
  cmd.add_option("--z0", f.z0,
                 allow_batch ? "Initial state .npy, float64 shape [D], or [B, D]: B trajectories "
                               "at once, each bit-exact to its own single rollout"
                             : "Initial state .npy, float64 shape [D]")
      ->type_name("PATH")
      ->required();
  cmd.add_option("--a", f.a, "Transition matrix .npy, float64 shape [D, D]")
      ->type_name("PATH")
      ->required();
  cmd.add_option("--steps", f.steps, "Number of steps (>= 0)")
      ->check(IntegerIn(0, INT64_MAX))
      ->capture_default_str();
  cmd.add_option("--hash-every", f.hash_every,
                 "Checkpoint spacing (>= 1); steps 0 and the last are always hashed")
      ->check(IntegerIn(1, INT64_MAX))
      ->capture_default_str();
}

StatusOr<RolloutInputs> ReadRolloutInputs(const RolloutInputFlags& f, bool allow_batch) {
  DASHI_ASSIGN_OR_RETURN(NpyArray z0, ReadF64Array(f.z0, 1, allow_batch ? 2 : 1));
  DASHI_ASSIGN_OR_RETURN(NpyArray a, ReadF64Array(f.a, 2));
  RolloutInputs in;
  in.batched = z0.shape.size() == 2;
  in.batch = in.batched ? z0.shape[0] : 1;
  in.dim = z0.shape.back();
  if (in.batch < 1 || in.dim < 1) {
    return InvalidArgumentError(f.z0 + ": shape " + NpyShapeString(z0.shape) +
                                " holds no state (B and D must be at least 1)");
  }
  if (a.shape[0] != a.shape[1]) {
    return InvalidArgumentError(f.a + ": shape " + NpyShapeString(a.shape) + " is not square");
  }
  if (a.shape[0] != in.dim) {
    return InvalidArgumentError(f.a + ": shape " + NpyShapeString(a.shape) + " does not match " +
                                f.z0 + "'s length " + std::to_string(in.dim));
  }
  DASHI_ASSIGN_OR_RETURN(in.z0, z0.As<double>());
  DASHI_ASSIGN_OR_RETURN(in.a, a.As<double>());
  return in;
}

}  // namespace dashi::tools
