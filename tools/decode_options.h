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
};

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

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DECODE_OPTIONS_H_
