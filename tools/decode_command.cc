#include "tools/decode_command.h"

#include <cstdio>
#include <memory>

#include "backend/provenance.h"
#include "core_ref/decode/decoder.h"
#include "core_ref/npy/npy.h"
#include "tools/cli_numbers.h"
#include "tools/cli_util.h"
#include "tools/decode_options.h"
#include "tools/output_guard.h"
#include "tools/proxy_json.h"

namespace dashi::tools {
namespace {

struct DecodeOptions {
  std::string z, proxy, out_dir = "decoded";
  int64_t frame = 0;
  int64_t t = -1;
  bool no_png = false;
  DecodeCliOptions decode;
};

int Run(const DecodeOptions& o) {
  if (Status st = CheckOutputPlaces({{"--out-dir", o.out_dir}},
                                    {{"--z", o.z}, {"--proxy", o.proxy}});
      !st.ok()) {
    return FailCommandLine("decode", st);
  }
  StatusOr<nlohmann::json> pj = ReadJson(o.proxy);
  if (!pj.ok()) return Fail("decode", pj.status());
  StatusOr<ProxySpec> spec = ProxySpecFromJson(*pj, o.proxy);
  if (!spec.ok()) return Fail("decode", spec.status());
  StatusOr<NpyArray> za = ReadNpy(o.z);
  if (!za.ok()) return Fail("decode", za.status());
  const int rank = static_cast<int>(za->shape.size());
  if (rank != 1 && rank != 2) {
    return Fail("decode", InvalidArgumentError(o.z + ": shape " + NpyShapeString(za->shape) +
                                               " is neither [D] nor [frames, D]"));
  }
  StatusOr<NpyArray> zf = ReadF64Array(o.z, rank);
  if (!zf.ok()) return Fail("decode", zf.status());
  const int64_t dim = za->shape.back(), frames = rank == 2 ? za->shape[0] : 1;
  if (dim != spec->dim()) {
    return Fail("decode", InvalidArgumentError(o.z + ": D = " + std::to_string(dim) + " but " +
                                               o.proxy + " describes D = " +
                                               std::to_string(spec->dim())));
  }
  if (o.frame < 0 || o.frame >= frames) {
    return Fail("decode", InvalidArgumentError("--frame " + std::to_string(o.frame) +
                                               " is outside [0, " + std::to_string(frames) + ")"));
  }
  StatusOr<DecodeParams> params = o.decode.ToParams();
  if (!params.ok()) return Fail("decode", params.status());
  StatusOr<Decoder> dec = Decoder::Create(*spec, *params);
  if (!dec.ok()) return Fail("decode", dec.status());
  const std::vector<double> all = *zf->As<double>();
  const std::span<const double> z = std::span<const double>(all).subspan(o.frame * dim, dim);
  const uint64_t t = static_cast<uint64_t>(o.t >= 0 ? o.t : o.frame);
  StatusOr<DecodedFrame> f = dec->Decode(z, t);
  if (!f.ok()) return Fail("decode", f.status());
  StatusOr<OutputSet> out_set = BeginOutputDirectory(o.out_dir, "decode");
  Status st = out_set.status();
  if (st.ok()) st = WriteDecodedFrame(out_set->staging() + "/", *f, spec->n, !o.no_png,
                                      DefaultPngScale(spec->n));
  nlohmann::json report = DecodedFrameJson(*f);
  report["provenance"] = backend::ReferenceProvenance("ref");
  report["params"] = DecodeParamsJson(*params);
  report["z"] = o.z;
  report["frame"] = o.frame;
  report["t"] = t;
  if (st.ok()) st = WriteJson(out_set->Path("decode.json"), report);
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("decode", st);
  std::printf("decoded frame %lld (t = %llu) of %s: closure depth %d, %lld active cells; wrote "
              "%s/\n",
              static_cast<long long>(o.frame), static_cast<unsigned long long>(t), o.z.c_str(),
              f->closure.depth,
              static_cast<long long>(f->closure.levels.back().active_cells), o.out_dir.c_str());
  return 0;
}

}  // namespace

CLI::App* AddDecodeCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<DecodeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "decode",
      "Decode a proxy state into vorticity: low-pass + ternary mask (smooth, normalise, PDA "
      "threshold, closure) + residual synthesis with counter-based random phases. Writes to "
      "--out-dir: omega.npy, omega_lp.npy, omega_resid.npy, mask.npy (int8), decode.json and "
      "PNG pictures of the field, the low-pass and the mask.");
  cmd->add_option("--z", o->z, "Proxy state(s) .npy: [D] or [frames, D]")
      ->type_name("PATH")
      ->required();
  cmd->add_option("--proxy", o->proxy, "proxy.json written by `dashi learn` or `dashi run`")
      ->type_name("PATH")
      ->required();
  cmd->add_option("--frame", o->frame, "Row of a [frames, D] input (>= 0)")
      ->check(IntegerIn(0, INT64_MAX))
      ->capture_default_str();
  cmd->add_option("--t", o->t, "Time key of the residual phases, >= 0 (default: the frame index)")
      ->check(IntegerIn(0, INT64_MAX));
  cmd->add_option("--out-dir", o->out_dir, "Output directory")
      ->type_name("PATH")
      ->capture_default_str();
  cmd->add_flag("--no-png", o->no_png, "Skip the PNG pictures");
  AddDecodeOptions(*cmd, o->decode);
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
