// The decoder flags shared by `dashi decode` and `dashi run`, their JSON record, and the files
// one decoded frame is written as (.npy arrays, PNG pictures, a JSON of closure statistics).
#ifndef DASHI_TOOLS_DECODE_OPTIONS_H_
#define DASHI_TOOLS_DECODE_OPTIONS_H_

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core_ref/decode/decoder.h"

namespace dashi::tools {

struct DecodeCliOptions {
  double tau = 0.3;
  std::string smoothing = "triangle";
  int smooth_radius = 2;
  int ann_radius = 1;
  int maj_radius = 1;
  int eta = 3;
  int max_levels = 64;
  uint64_t seed = 1;

  StatusOr<DecodeParams> ToParams() const;
  // "" when every flag is in its range, else the first that is not, named ("--tau 1.5 is
  // outside (0, 1] ..."). The ranges: --tau in (0, 1] (P_τ takes τ > 0, docs/MATH.md §1.2, and
  // the field is normalised to max |f| = 1, so τ > 1 cuts every cell); --eta in
  // [1, (2·maj-radius + 1)²] (S includes the cell itself: below 1 a cell its window outvotes is
  // kept, above the window size every cell is removed). The radii, in [0, kMaxWindowRadius], and
  // --max-levels >= 0 are checked by their options' ranges.
  std::string FlagProblem() const;
};

// Registers the flags on `cmd` and checks them once the command line is parsed (AddFlagCheck,
// tools/cli_numbers.h): a value out of range is a command-line error (exit code 2) naming the
// flag, before any work.
void AddDecodeOptions(CLI::App& cmd, DecodeCliOptions& o);
nlohmann::json DecodeParamsJson(const DecodeParams& p);
// Closure depth, per-level statistics and stage times of one decoded frame.
nlohmann::json DecodedFrameJson(const DecodedFrame& f);

// Writes <prefix>omega.npy, omega_lp.npy, omega_resid.npy, mask.npy (|i1) and, when `png`,
// <prefix>omega.png, omega_lp.png, mask.png (each cell `scale`×`scale` pixels).
Status WriteDecodedFrame(const std::string& prefix, const DecodedFrame& f, int64_t n, bool png,
                         int scale);

// A pixel scale that makes an N×N picture at least ~384 pixels wide.
int DefaultPngScale(int64_t n);

// Empty when `tau` is a PDA threshold in (0, 1] (on a field normalised to max |f| = 1), else
// "--tau X is outside (0, 1]: ..." (decode's, run's and scales' --tau).
std::string TauProblem(double tau);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DECODE_OPTIONS_H_
